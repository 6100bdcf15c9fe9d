#!/usr/bin/env node
// npm run build:binary: gw as one executable, Node included, with Node's single executable
// applications: a Node binary, gw's bundle (dist/, the manifest, package.json) as an asset, and a
// small launcher (sea-launcher.cjs), injected with postject. Run `npm run build` first.
//
//   npm run build:binary             this machine's: build/gw (build\gw.exe on Windows), from the node running it
//   npm run build:binary -- --all    build/gw-linux-x64, gw-linux-arm64, gw-win-x64.exe and gw-darwin-x64,
//                                    with SHA256SUMS (and SHA256SUMS.asc when GW_SIGNING_KEY names a GnuPG key)
//   npm run build:binary -- DIR      into DIR instead of build/
//
// Every platform gets the Node version running this script (the toolchain's, 22.23.3): the
// registry's node-<platform> package of that version, fetched through npm once and kept
// (registry-node.mjs), so a second build needs no network. The blob (no code cache, no
// snapshot) is the same for every platform of one Node version: it is made once, by this Node.
import {execFileSync, spawnSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import {tmpdir} from 'node:os'
import {basename, dirname, join, relative, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'

import postject from 'postject'

import {builtBuild} from './build-id.mjs'
import {THIS_PLATFORM, registryNode} from './registry-node.mjs'

/** What --all builds: each platform's file name. */
const PLATFORMS = {
  'linux-x64': 'gw-linux-x64',
  'linux-arm64': 'gw-linux-arm64',
  'win-x64': 'gw-win-x64.exe',
  'darwin-x64': 'gw-darwin-x64',
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const all = process.argv.includes('--all')
const out = resolve(process.argv.slice(2).find((arg) => arg !== '--all') ?? join(root, 'build'))
if (!existsSync(join(root, 'dist', 'main.js'))) throw new Error('Run npm run build first: dist/ is missing.')

/** The node binary of `platform`, of this Node's version: this one for this machine, else the registry's. */
const nodeFor = (platform) =>
  platform === THIS_PLATFORM ? process.execPath : registryNode(platform, process.versions.node)

const LC_SEGMENT_64 = 0x19
const LC_CODE_SIGNATURE = 0x1d
/**
 * The Mach-O without its code signature, as `codesign --remove-signature` leaves it: Node's macOS
 * builds are signed, injecting breaks that signature, and a Mac signs only an unsigned file.
 * Expects what the linker writes: the signature's command last, its data ending the file.
 */
function withoutMachOSignature(binary) {
  const ncmds = binary.readUInt32LE(16)
  const sizeofcmds = binary.readUInt32LE(20)
  let linkedit
  let signature
  for (let i = 0, at = 32; i < ncmds; i++, at += binary.readUInt32LE(at + 4)) {
    const cmd = binary.readUInt32LE(at)
    if (cmd === LC_SEGMENT_64 && binary.toString('latin1', at + 8, at + 24).replace(/\0+$/, '') === '__LINKEDIT')
      linkedit = at
    if (cmd === LC_CODE_SIGNATURE) signature = at
  }
  if (signature === undefined) return binary
  const dataoff = binary.readUInt32LE(signature + 8)
  if (signature + 16 !== 32 + sizeofcmds || dataoff + binary.readUInt32LE(signature + 12) !== binary.length)
    throw new Error('The macOS node binary is laid out in a way this build does not know: its signature is not last.')
  binary.fill(0, signature, signature + 16)
  binary.writeUInt32LE(ncmds - 1, 16)
  binary.writeUInt32LE(sizeofcmds - 16, 20)
  // __LINKEDIT now ends where the signature began (its filesize, after fileoff).
  binary.writeBigUInt64LE(BigInt(dataoff) - binary.readBigUInt64LE(linkedit + 40), linkedit + 48)
  return binary.subarray(0, dataoff)
}

/**
 * The Windows executable without its Authenticode signature, as `signtool remove /s` leaves it:
 * injecting breaks it (postject warns "The signature seems corrupted!"), and signtool signs the
 * result for hand-out. The certificate table is the file's end, named by data directory 4.
 */
function withoutPESignature(binary) {
  const optionalHeader = binary.readUInt32LE(0x3c) + 24
  if (binary.readUInt16LE(optionalHeader) !== 0x20b) throw new Error('The Windows node binary is not PE32+.')
  const security = optionalHeader + 112 + 4 * 8
  const table = binary.readUInt32LE(security)
  if (table === 0) return binary
  if (table + binary.readUInt32LE(security + 4) !== binary.length)
    throw new Error('The Windows node binary is laid out in a way this build does not know: its signature is not last.')
  binary.fill(0, security, security + 8)
  return binary.subarray(0, table)
}

/** `node`'s bytes, unsigned: a Mach-O or PE signature no longer holds once the blob is in. */
function unsigned(node) {
  if (node.readUInt32LE(0) === 0xfeedfacf) return withoutMachOSignature(node)
  return node.toString('latin1', 0, 2) === 'MZ' ? withoutPESignature(node) : node
}

// What the executable carries: the bundle (without source maps), the manifest, package.json, and
// the guides `gw help GUIDE` prints (docs/, as the package ships them).
const files = {}
for (const file of readdirSync(join(root, 'dist'), {recursive: true}))
  if (file.endsWith('.js'))
    files[join('dist', file).replaceAll('\\', '/')] = readFileSync(join(root, 'dist', file), 'utf8')
for (const file of readdirSync(join(root, 'docs')))
  if (file.endsWith('.md')) files[`docs/${file}`] = readFileSync(join(root, 'docs', file), 'utf8')
for (const file of ['package.json', 'oclif.manifest.json']) files[file] = readFileSync(join(root, file), 'utf8')
const payload = JSON.stringify(files)
// The cache folder of this build: its name (build-id.mjs) and the hash of what it carries.
const build = `${builtBuild(root).id}-${createHash('sha256').update(payload).digest('hex').slice(0, 12)}`
/** What the launcher checks the unpacked files against: each one's size and SHA-256. */
const sums = Object.fromEntries(
  Object.entries(files).map(([path, content]) => [
    path,
    [Buffer.byteLength(content), createHash('sha256').update(content).digest('hex')],
  ]),
)

const work = mkdtempSync(join(tmpdir(), 'gw-sea-'))
mkdirSync(out, {recursive: true})
writeFileSync(join(work, 'files.json'), payload)
writeFileSync(join(work, 'sums.json'), JSON.stringify(sums))
const launcher = readFileSync(join(root, 'scripts', 'sea-launcher.cjs'), 'utf8').replace('__GW_BUILD__', build)
writeFileSync(join(work, 'launcher.cjs'), launcher)
// Paths relative to the work folder, which Node is run in: the blob keeps main's path as given, and
// a temporary folder's name in it would make every build's blob differ.
const config = {
  main: 'launcher.cjs',
  output: 'gw.blob',
  disableExperimentalSEAWarning: true,
  // No code cache (nor snapshot): the blob is then the same for every platform, and the launcher keeps import().
  assets: {'files.json': 'files.json', 'sums.json': 'sums.json'},
}
writeFileSync(join(work, 'sea-config.json'), JSON.stringify(config, null, 2))
// Node talks on success: its words are shown only when it fails.
try {
  execFileSync(process.execPath, ['--experimental-sea-config', 'sea-config.json'], {cwd: work, stdio: 'pipe'})
} catch (error) {
  process.stderr.write(`${error.stdout ?? ''}${error.stderr ?? ''}`)
  throw error
}
const blob = readFileSync(join(work, config.output))

/** Injects the blob into a copy of `node` at `binary`. */
async function inject(node, binary) {
  const bytes = readFileSync(node)
  // On a Mac, codesign removes a Mach-O's signature as Node's documentation says, and signs it after.
  const macho = bytes.readUInt32LE(0) === 0xfeedfacf
  const signHere = macho && process.platform === 'darwin'
  writeFileSync(binary, signHere ? bytes : unsigned(bytes))
  if (signHere) execFileSync('codesign', ['--remove-signature', binary])
  chmodSync(binary, 0o755)
  // LIEF, inside postject, says "Can't find string offset for section name '.note…'" for each ELF
  // note section it leaves alone: harmless, and not worth a newcomer's worry.
  const warn = console.warn
  console.warn = (...words) => /can't find string offset for section name/i.test(words.join(' ')) || warn(...words)
  try {
    await postject.inject(binary, 'NODE_SEA_BLOB', blob, {
      sentinelFuse: 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2',
      ...(macho ? {machoSegmentName: 'NODE_SEA'} : {}),
    })
  } finally {
    console.warn = warn
  }
  if (signHere) execFileSync('codesign', ['--sign', '-', binary])
}

const targets = all
  ? Object.entries(PLATFORMS).map(([platform, file]) => ({platform, binary: join(out, file)}))
  : [{platform: THIS_PLATFORM, binary: join(out, process.platform === 'win32' ? 'gw.exe' : 'gw')}]
/**
 * SHA256SUMS beside the executables, as sha256sum writes it (README: how to check it on Linux,
 * macOS and Windows), and signed with GnuPG when the builder names a key of theirs in
 * GW_SIGNING_KEY (its id, fingerprint or e-mail; GNUPGHOME as gpg takes it): SHA256SUMS.asc.
 */
function writeChecksums(binaries) {
  const sums = join(out, 'SHA256SUMS')
  const line = (binary) => `${createHash('sha256').update(readFileSync(binary)).digest('hex')}  ${basename(binary)}\n`
  writeFileSync(sums, binaries.map(line).join(''))
  // What gw version --check reads where the builds are handed out: this build's name.
  copyFileSync(join(root, 'dist', 'build.json'), join(out, 'build.json'))
  process.stdout.write(`${relative(process.cwd(), sums)}\n`)
  const key = process.env.GW_SIGNING_KEY
  if (!key) return
  const signature = `${sums}.asc`
  const gpg = ['--batch', '--yes', '--local-user', key, '--armor', '--detach-sign', '--output', signature, sums]
  const signed = spawnSync('gpg', gpg, {encoding: 'utf8'})
  if (signed.status !== 0) {
    process.stderr.write(`Signing SHA256SUMS with GW_SIGNING_KEY failed:\n${signed.stderr ?? signed.error?.message}`)
    process.exit(1)
  }
  process.stdout.write(`${relative(process.cwd(), signature)}: signed by ${key}\n`)
}

try {
  for (const {platform, binary} of targets) {
    await inject(nodeFor(platform), binary)
    process.stdout.write(`${relative(process.cwd(), binary)}: gw ${build} for ${platform}, node ${process.version}\n`)
  }
  if (all) writeChecksums(targets.map((target) => target.binary))
} finally {
  rmSync(work, {recursive: true, force: true})
}
