/**
 * Each command loads what it uses (docs/design.md, Budgets): the built gw run with a
 * preload that records the modules it loaded (test/helpers/module-recorder.mjs), as a person runs
 * it. The bundle's files are named by the sources their source maps list; Node's own modules by
 * their names. What a path not taken would load is named here, with what loads it.
 */
import {execFile} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {gw} from '../helpers/cli.js'
import {type GwWorld, startWorld} from '../helpers/gw-env.js'
import {INSTALLED, gwEnvironment, gwUnderTest} from '../helpers/gw-under-test.js'
import {REPO_ROOT, tempDir} from '../helpers/shared.js'

const RECORDER = join(REPO_ROOT, 'test', 'helpers', 'module-recorder.mjs')

interface Loaded {
  code: number | null
  /** The sources in the bundle's files it loaded: `src/lib/gateway/client.ts`, `node_modules/zod/...`. */
  sources: Set<string>
  /** Node's own modules it compiled: `tls`, `internal/deps/undici/undici`. */
  builtins: Set<string>
}

/** Runs this checkout's built gw with `args`, recording what it loads. */
async function loadedBy(args: string[], env: Record<string, string>): Promise<Loaded> {
  const record = join(tempDir('gw-modules-'), 'loaded.txt')
  const [node, bin] = gwUnderTest()
  const code = await new Promise<number | null>((resolve) => {
    const child = execFile(node!, ['--import', RECORDER, bin!, ...args], {
      env: gwEnvironment({...env, GW_MODULE_RECORD: record}),
    })
    child.on('close', resolve)
  })
  const lines = readFileSync(record, 'utf8').split('\n')
  const sources = new Set<string>()
  for (const url of lines.filter((line) => line.startsWith('file:') && line.includes('/dist/'))) {
    const map = JSON.parse(readFileSync(`${fileURLToPath(url)}.map`, 'utf8')) as {sources: string[]}
    for (const source of map.sources) sources.add(source.replace(/^(\.\.\/)+/, ''))
  }
  const builtins = new Set(lines.filter((line) => line.startsWith('NativeModule ')).map((line) => line.slice(13)))
  return {code, sources, builtins}
}

const loadedOf = (sources: Set<string>, prefix: string) => [...sources].filter((source) => source.startsWith(prefix))

/** What no command that neither asks, draws a table of a sheet, reads a workbook nor serves a page loads. */
const NOT_ON_A_QUERY = [
  'node_modules/@inquirer/', // prompts
  'node_modules/exceljs/', // workbooks written
  'node_modules/yauzl/', // workbooks read
  'node_modules/saxes/',
  'node_modules/qrcode/', // QR codes drawn
  'node_modules/cli-progress/', // progress of a batch
  'node_modules/csv-parse/', // files read
  'node_modules/csv-stringify/', // reports written
  'src/lib/desk/', // the desk's pages
  'src/lib/files/workbook', // finance's files, read and written
  'src/lib/files/xlsx',
  'src/lib/files/ods',
  'src/lib/files/csv',
  'src/lib/files/table',
  'src/lib/reconcile/',
  'src/lib/notify/',
  'src/sandbox/',
]
/**
 * Node's own modules a plain http query does not need: TLS (https only), and Node's bundled undici,
 * with the HTTP/2, zlib and assert it loads (an import of node:http loads it, through its WebSocket export).
 */
const NOT_FOR_HTTP = ['tls', 'https', '_tls_wrap', 'internal/deps/undici/undici', 'http2', 'zlib', 'assert']

describe.skipIf(INSTALLED)('what a command loads', () => {
  let world: GwWorld
  let order: string
  beforeAll(async () => {
    world = await startWorld({spawned: true})
    order = (await world.paidOrders(1, 100_000, 'LOAD'))[0]!
  })
  afterAll(() => world.close())
  const env = () => ({GW_CONFIG_DIR: world.configDir})

  it('gw --version loads neither oclif nor any part of gw that talks to a gateway, keeps history or shows a table', async () => {
    const {code, sources, builtins} = await loadedBy(['--version'], env())
    expect(code).toBe(0)
    expect(sources).toContain('src/main.ts')
    for (const prefix of ['src/lib/', 'node_modules/@oclif/', 'node_modules/zod/', 'node_modules/cli-table3/'])
      expect(loadedOf(sources, prefix)).toEqual([])
    for (const builtin of ['http', 'crypto', 'sqlite', ...NOT_FOR_HTTP]) expect(builtins).not.toContain(builtin)
  })

  it("gw --version says what oclif says of the build: its help's VERSION line", async () => {
    const [version, help] = [await gw(['--version']), await gw(['--help'])]
    expect(version.code).toBe(0)
    const build = (JSON.parse(readFileSync(join(REPO_ROOT, 'dist', 'build.json'), 'utf8')) as {id: string}).id
    expect(version.stdout).toBe(`gw/${build} ${process.platform}-${process.arch} node-${process.version}\n`)
    expect(help.stdout).toContain(`VERSION\n  ${version.stdout}`)
    // As oclif took it: the first word, whatever follows.
    expect((await gw(['--version', 'order'])).stdout).toBe(version.stdout)
  })

  it('gw order query over http loads the client, the history and the view, and no TLS, undici, prompt, workbook or desk', async () => {
    const {code, sources, builtins} = await loadedBy(['order', 'query', order, '--channel', 'wechat'], env())
    expect(code).toBe(0)
    // What it does use, so that the record is known to be whole.
    for (const used of ['src/lib/gateway/client.ts', 'src/lib/store/history.ts', 'src/lib/render/orders.ts'])
      expect(sources).toContain(used)
    expect(builtins).toContain('http')
    for (const prefix of NOT_ON_A_QUERY) expect(loadedOf(sources, prefix)).toEqual([])
    for (const builtin of NOT_FOR_HTTP) expect(builtins).not.toContain(builtin)
  })

  it('gw order query over https loads TLS, and still not undici', async () => {
    // Nothing listens there: the query cannot connect (exit 3), having loaded what https takes.
    const https = world.environmentProfile({GW_CONFIG_DIR: world.configDir, GW_BASE_URL: 'https://127.0.0.1:9/Gateway'})
    const {code, builtins} = await loadedBy(['order', 'query', order, '--channel', 'wechat', '--timeout', '1'], https)
    expect(code).toBe(3)
    expect(builtins).toContain('tls')
    expect(builtins).not.toContain('internal/deps/undici/undici')
  })
})
