// Preloaded into gw (NODE_OPTIONS=--import) where the machine cannot mount a small filesystem:
// writes to journals (*.jsonl) fail with ENOSPC once GW_TEST_DISK_BYTES bytes have been written,
// as they would on a full disk. Test-only; gw itself has no such switch.
import fs from 'node:fs'
import {syncBuiltinESMExports} from 'node:module'

const limit = Number(process.env.GW_TEST_DISK_BYTES)
let written = 0
const open = fs.promises.open
fs.promises.open = async function (path, ...rest) {
  const handle = await open.call(this, path, ...rest)
  if (String(path).endsWith('.jsonl')) {
    const write = handle.write.bind(handle)
    handle.write = async (buffer, offset = 0, length = buffer.length - offset, ...more) => {
      if (written + length > limit) {
        const error = new Error('ENOSPC: no space left on device, write')
        error.code = 'ENOSPC'
        throw error
      }
      written += length
      return write(buffer, offset, length, ...more)
    }
  }
  return handle
}
syncBuiltinESMExports()
