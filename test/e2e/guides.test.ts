/**
 * The README and every guide of docs/, followed line for line as their reader would
 * (helpers/guide-session.ts): each command of their `sh` blocks run as printed, in order, in a
 * network, home and folder of their own, against the sandbox their own lines start. The pages are
 * read where the gw under test has them (`gw help GUIDE --json` names the file, the README is
 * beside docs/): the installed package's test follows the pages it ships.
 */
import {spawnSync} from 'node:child_process'
import {readFileSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {GUIDES, type Guide} from '../../src/lib/cli/guides.js'
import {shellWord} from '../../src/lib/errors.js'
import {type GuideLine, type GuideStep, GuideSession, type LineResult, stepsOf} from '../helpers/guide-session.js'
import {gwEnvironment, gwUnderTest} from '../helpers/gw-under-test.js'

type Page = Guide | 'README'
const PAGES: Page[] = ['README', ...(Object.keys(GUIDES) as Guide[])]

/** The file of a page, as the gw under test has it. */
function shipped(page: Page): string {
  if (page === 'README') return join(dirname(dirname(shipped('support'))), 'README.md')
  const [program, ...first] = gwUnderTest()
  const help = spawnSync(program!, [...first, 'help', page, '--json'], {
    encoding: 'utf8',
    env: gwEnvironment(),
  })
  if (help.status !== 0) throw new Error(`gw help ${page} --json: ${help.stderr}`)
  return (JSON.parse(help.stdout) as {file: string}).file
}

/** A command as printed, without its comment. */
const commandOf = (line: string) => line.replace(/\s+#\s.*$/, '')

/**
 * What a command of a guide says it does, beyond its exit code: by the command as printed
 * (without its comment), one check for each time it is run, in order.
 */
const SAYS: Record<string, ((result: LineResult) => void)[]> = {
  'gw refund create INV-1001 --amount 50.00': [({stdout}) => expect(stdout).toMatch(/^status: +refunded$/m)],
  'gw order timeline INV-1001 --refresh': [
    ({stdout}) => expect(stdout).toContain('Paid 150.50 THB, refunded 50.00 THB, left 100.50 THB.'),
  ],
  'gw order list --amount 150.50': [({stdout}) => expect(stdout).toContain('INV-1001')],
  'gw refund list --amount 150.50': [({stdout}) => expect(stdout).toMatch(/INV-1001\s.*50\.00 THB/)],
  'gw refund create --from-csv refunds-nov.csv --yes': [
    ({stdout}) => expect(stdout).toMatch(/^refunded\tTHB\t2\t32\.00 THB$/m),
    ({stdout}) => expect(stdout).toMatch(/^refunded_earlier\tTHB\t2\t32\.00 THB$/m),
  ],
  'gw reconcile orders-export.csv': [({stdout}) => expect(stdout).toContain('3 need a look')],
  'gw reconcile Export.xlsx --column mch_order_no="Invoice No" --column amount="Amount (THB)" --column status=Status': [
    ({stdout}) => expect(stdout).toContain('3 rows, 0 need a look'),
  ],
  'gw signature verify notifications.jsonl': [({stdout}) => expect(stdout).toMatch(/^line 1: valid/)],
  'gw notify replay notifications.jsonl --to http://localhost:3000/hooks/pay': [
    ({stdout}) => expect(stdout).toMatch(/^INV-2002 +acknowledged/),
  ],
  'gw doctor --profile mine': [({stdout}) => expect(stdout).toContain('All checks passed.')],
  'gw history': [({stdout}) => expect(stdout).toMatch(/history\.db/)],
}

/**
 * What a guide's reader has that no line of it makes, as lines run before it: the developer's own
 * endpoint, at the address the guide gives it (http://localhost:3000/hooks/pay), acknowledging
 * every notification; the history of a machine where gw has refunded, for the security guide.
 */
const READER_HAS: Partial<Record<Page, (session: GuideSession) => GuideLine[]>> = {
  developers: (session) => {
    const endpoint = join(session.home, 'your-endpoint.mjs')
    writeFileSync(
      endpoint,
      `import {createServer} from 'node:http'
createServer((req, res) => req.resume().on('end', () => res.end('{"result":"SUCCESS","msg":"OK"}')))
  .listen(3000, '::', () => console.log('your endpoint, listening at http://localhost:3000/hooks/pay'))
`,
    )
    return [{line: `${shellWord(process.execPath)} ${shellWord(endpoint)}`, exit: 0, background: true}]
  },
  security: () => [
    {line: 'gw sandbox start', exit: 0, background: true},
    {
      line: 'gw order create --channel wechat --amount 10 --fee-type THB --mch-order-no INV-3001 --no-qr',
      exit: 0,
      background: false,
    },
    {line: 'gw sandbox pay INV-3001', exit: 0, background: false},
    {line: 'gw refund create INV-3001 --amount 5', exit: 0, background: false},
  ],
}

const steps = Object.fromEntries(PAGES.map((page) => [page, stepsOf(readFileSync(shipped(page), 'utf8'))])) as Record<
  Page,
  GuideStep[]
>

const withCommands = PAGES.filter((page) => steps[page].some((step) => step.kind === 'commands' && !step.runBy))

describe('the guides', () => {
  it('are each followed here, but the install lines, which the installed tests run as written, and the checkout lines, which CI runs', () => {
    expect(withCommands).toEqual(['README', 'support', 'finance', 'developers', 'security'])
    const elsewhere = Object.values(steps).flatMap((guide) =>
      guide.flatMap((step) => ('runBy' in step && step.runBy ? [step.runBy] : [])),
    )
    // The checkout's two commands are what CI runs (readme.test.ts); the install lines, readme-install's.
    expect(elsewhere).toEqual([
      'quick start: checkout',
      'install: package',
      'install: linux',
      'install: linux-path',
      'install: remove-linux',
      'install: signature',
    ])
  })

  it('say what their lines do: each command a check names is a line of a guide', () => {
    const commands = Object.values(steps).flatMap((guide) =>
      guide.flatMap((step) => (step.kind === 'commands' ? step.lines.map(({line}) => commandOf(line)) : [])),
    )
    for (const command of Object.keys(SAYS)) expect(commands).toContain(command)
  })
})

for (const guide of withCommands) {
  describe(`${guide === 'README' ? 'README' : `docs/${guide}`}.md, followed line for line`, () => {
    let session: GuideSession
    /** How many times each command has run. */
    const ran = new Map<string, number>()
    beforeAll(async () => {
      session = await GuideSession.start()
      for (const line of READER_HAS[guide]?.(session) ?? []) {
        const result = await session.run(line)
        expect(result.code, `${line.line}\n${result.stderr}`).toBe(line.background ? null : line.exit)
      }
    })
    afterAll(() => session?.close())

    const blocks = steps[guide].filter((step) => step.kind === 'commands')
    for (const block of blocks) {
      if (block.runBy) continue
      it(`block ${block.block}: ${block.lines[0]!.line.split('\n')[0]}`, async () => {
        // The files the guide gives its reader before this block.
        const before = steps[guide].slice(0, steps[guide].indexOf(block))
        for (const step of before) if (step.kind === 'file' && !session.wrote.has(step.name)) await session.write(step)
        for (const line of block.lines) {
          const result = await session.run(line)
          if (line.background) expect(result.code, `${line.line}\n${result.stderr}`).toBeNull()
          else expect(result.code, `${line.line}\n${result.stdout}\n${result.stderr}`).toBe(line.exit)
          const said = SAYS[commandOf(line.line)]
          said?.[Math.min(ran.get(commandOf(line.line)) ?? 0, said.length - 1)]!(result)
          ran.set(commandOf(line.line), (ran.get(commandOf(line.line)) ?? 0) + 1)
        }
      })
    }

    it('the lines left running in a terminal of their own end with Ctrl-C, exit 0, saying so', async () => {
      // What only the reader had (READER_HAS) is theirs to stop.
      for (const result of (await session.stop()).filter(({line}) => line.startsWith('gw '))) {
        const said = `${result.line}\n${result.stderr}`
        expect(result.code, said).toBe(0)
        expect(result.stderr, said).not.toMatch(/Error/)
        expect(result.stderr, said).toMatch(/^sandbox stopped|^\d+ payments? notified|^gw desk stopped/m)
      }
    })
  })
}
