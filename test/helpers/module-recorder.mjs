// Preloaded into a gw process (node --import this bin/run.js ...): at its exit, writes to the file
// GW_MODULE_RECORD names what that process loaded: the files of the bundle it imported, and the
// modules of Node's own it compiled (process.moduleLoadList: `NativeModule tls`), one a line.
import {writeFileSync} from 'node:fs'
import module from 'node:module'

const files = []
module.registerHooks({
  load(url, context, nextLoad) {
    files.push(url)
    return nextLoad(url, context)
  },
})
process.on('exit', () => writeFileSync(process.env.GW_MODULE_RECORD, [...files, ...process.moduleLoadList].join('\n')))
