/** gw's help: every command with its usage, flags and examples, and the reference the build writes. */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {GUIDES, guideText} from '../../src/lib/cli/guides.js'
import {gw} from '../helpers/cli.js'
import {builtFile} from '../helpers/gw-under-test.js'
import {REPO_ROOT} from '../helpers/shared.js'

interface Manifest {
  commands: Record<
    string,
    {
      pluginName: string
      summary?: string
      description?: string
      examples?: string[]
      flags: Record<string, {description?: string; char?: string}>
    }
  >
}

const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'oclif.manifest.json'), 'utf8')) as Manifest

const ours = Object.entries(manifest.commands).filter(([, c]) => c.pluginName === 'gw')

describe('help', () => {
  it('covers every command of the contract (docs/commands.md)', () => {
    expect(ours.map(([id]) => id).sort()).toEqual([
      'completion',
      'desk',
      'doctor',
      'help',
      'history',
      'notify:listen',
      'notify:replay',
      'order:close',
      'order:create',
      'order:list',
      'order:query',
      'order:timeline',
      'profile:add',
      'profile:list',
      'profile:remove',
      'profile:set',
      'profile:show',
      'profile:use',
      'reconcile',
      'refund:create',
      'refund:list',
      'refund:query',
      'sandbox:faults',
      'sandbox:merchant:add',
      'sandbox:notify',
      'sandbox:pay',
      'sandbox:seed',
      'sandbox:start',
      'signature:sign',
      'signature:verify',
      'version',
    ])
  })

  for (const [id, command] of ours) {
    it(`${id}: a summary, examples with long flags, every flag described`, () => {
      expect(command.summary ?? command.description).toBeTruthy()
      expect(command.examples?.length).toBeGreaterThan(0)
      for (const example of command.examples!) expect(example, example).not.toMatch(/\s-[a-zA-Z](\s|$)/)
      for (const [name, flag] of Object.entries(command.flags)) expect(flag.description, `--${name}`).toBeTruthy()
    })
  }

  it('usage lines read as a person types them: no list of choices, no tangled groups', async () => {
    // Four at a time: each is a process of its own, and a busy machine takes seconds to start one.
    const ids = ours.map(([id]) => id)
    for (let at = 0; at < ids.length; at += 4) {
      const helps = await Promise.all(ids.slice(at, at + 4).map((id) => gw([...id.split(':'), '--help'])))
      for (const [i, help] of helps.entries()) {
        const usage = /USAGE\n([\s\S]*?)\n\n/.exec(help.stdout)![1]!
        expect(usage, ids[at + i]).not.toMatch(/(\w+\|){4}|\|\s+\||\s\]/)
      }
    }
    // refund create's three ways, one line each, as written by hand.
    const refund = await gw(['refund', 'create', '--help'])
    expect(/USAGE\n([\s\S]*?)\n\n/.exec(refund.stdout)![1]).toBe(
      [
        '  $ gw refund create MCH_ORDER_NO (--amount D | --refund-fee N) [FLAGS]',
        '  $ gw refund create --gw-order-no N (--amount D | --refund-fee N) [FLAGS]',
        '  $ gw refund create --from-csv FILE [--dry-run] [--yes] [FLAGS]',
      ].join('\n'),
    )
    expect(refund.stdout).toMatch(
      /-y, --yes +do not ask for confirmation: before a bulk run\s+sends \(asked on any profile/,
    )
  })

  it('lists topics in the order a merchant meets them, then the guides', async () => {
    const result = await gw(['--help'])
    const topics = [...result.stdout.matchAll(/^ {2}(\w+) {2,}/gm)].map((m) => m[1])
    expect(topics).toEqual([
      'profile',
      'order',
      'refund',
      'notify',
      'sandbox',
      'signature',
      'desk',
      'reconcile',
      'history',
      'doctor',
      'completion',
      'version',
      'help',
      ...Object.keys(GUIDES),
    ])
  })

  it("shows a command's examples", async () => {
    const result = await gw(['order', 'create', '--help'])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('$ gw order create --channel promptpay --amount 150.50 --fee-type THB')
  })

  it("says what --amount selects in each list: orders by their total; refunds by theirs and by their order's", async () => {
    const [orders, refunds] = await Promise.all([gw(['order', 'list', '--help']), gw(['refund', 'list', '--help'])])
    const flat = (text: string) => text.replace(/\s+/g, ' ')
    expect(flat(orders.stdout)).toContain(
      '--amount=<value> only orders of this total (150.50, or ฿150.50 for one currency)',
    )
    expect(flat(refunds.stdout)).toContain(
      '--amount=<value> only refunds of this amount, and every refund of an order of this total (150.50,',
    )
    expect(refunds.stdout).toContain('$ gw refund list --amount 150.50')
  })
})

describe('the command reference', () => {
  it('docs/commands.md is what the build generates from the commands (commit it after a change)', async () => {
    const {execFileSync} = await import('node:child_process')
    const diff = execFileSync('git', ['diff', '--stat', '--', 'docs/commands.md'], {cwd: REPO_ROOT}).toString()
    expect(diff, 'docs/commands.md changed when built: commit the regenerated file').toBe('')
  })
})

describe('gw help --all', () => {
  it('prints the full reference offline: every command with its usage, flags and examples, as --help shows it', async () => {
    const reference = await gw(['help', '--all'])
    expect(reference.code).toBe(0)
    const commands = ours.filter(([, c]) => !('hidden' in c && c.hidden)).map(([id]) => `gw ${id.replaceAll(':', ' ')}`)
    const headed = [...reference.stdout.matchAll(/^={80}\n(gw [\w ]+)\n/gm)].map((m) => m[1])
    expect(headed.sort()).toEqual(commands.sort())
    const refund = await gw(['refund', 'create', '--help'])
    expect(reference.stdout).toContain(refund.stdout.trimEnd())
  })
})

describe('the guides, offline', () => {
  it('gw help lists every guide with what its reader finds there', async () => {
    const root = await gw(['help'])
    expect(root.code).toBe(0)
    const listed = /^GUIDES \(gw help GUIDE\)\n((?: {2}.*\n?)+)/m.exec(root.stdout)![1]!
    const names = [...listed.matchAll(/^ {2}([a-z]+) /gm)].map((match) => match[1])
    expect(names).toEqual(Object.keys(GUIDES))
    expect(listed).toContain('investigate an order')
  })

  it('gw help GUIDE prints the guide as docs/ holds it, its links said as where to read them offline', async () => {
    const shown = await gw(['help', 'finance'])
    expect(shown.code, shown.stderr).toBe(0)
    expect(shown.stdout).toBe(`${guideText(builtFile(), 'finance').trimEnd()}\n`)
    expect(shown.stdout).toMatch(/^# Finance/)
    expect(shown.stdout).toContain('What gw keeps (gw help security)')
    const json = await gw(['help', 'support', '--json'])
    expect(json.json()).toEqual({
      guide: 'support',
      file: builtFile('docs', 'support.md'),
      text: guideText(builtFile(), 'support'),
    })
  })

  it('a mistyped guide or command gets the closest to paste, exit 2, and nothing else', async () => {
    const typo = await gw(['help', 'suport'])
    expect(typo.code).toBe(2)
    expect(typo.stdout).toBe('')
    expect(typo.stderr).toBe('Error: "suport" is not a gw command, topic or guide.\nDid you mean: gw help support\n')
    const command = await gw(['help', 'refnd', 'create'])
    expect(command.code).toBe(2)
    expect(command.stderr).toContain('Did you mean: gw help refund create')
    // Words after a guide's name are ignored, as after a command's: never a suggestion of the same words.
    const extra = await gw(['help', 'support', 'extra'])
    expect(extra.code).toBe(0)
    expect(extra.stdout).toMatch(/^# Support/)
    // Topics and commands are still help's: the guides take no name of theirs.
    expect((await gw(['help', 'order'])).code).toBe(0)
  })
})
