/**
 * The linter's fences bite (eslint.config.js): code planted where it must not stand is refused, by
 * the project's own ESLint: a circle of imports, an import up a floor (static or dynamic), a loose
 * module of src/lib importing a folder, the command line's framework importing a command, a
 * function over 80 lines, a module over 400 lines and a command over 80, every line counted.
 */
import {mkdirSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {ESLint} from 'eslint'
import {afterAll, describe, expect, it} from 'vitest'

import {REPO_ROOT} from '../helpers/shared.js'

const eslint = new ESLint({cwd: REPO_ROOT})

/** The rules that refuse `code` at `path` (a path of the repository, the file need not exist). */
async function refused(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, {filePath: join(REPO_ROOT, path)})
  return result!.messages.map((m) => m.ruleId ?? m.message)
}

const lines = (n: number, line = 'x += 1') => Array.from({length: n}, () => `  ${line}`).join('\n')

describe('the fences of eslint.config.js', () => {
  const probe = join(REPO_ROOT, 'src', 'lib', `fence-probe-${process.pid}`)
  afterAll(() => rmSync(probe, {recursive: true, force: true}))

  it('refuse a circle of imports between two .ts files', async () => {
    mkdirSync(probe, {recursive: true})
    writeFileSync(join(probe, 'a.ts'), "import {b} from './b.js'\nexport const a = () => b\n")
    writeFileSync(join(probe, 'b.ts'), "import {a} from './a.js'\nexport const b = () => a\n")
    const results = await eslint.lintFiles([join(probe, 'a.ts'), join(probe, 'b.ts')])
    for (const result of results) expect(result.messages.map((m) => m.ruleId)).toContain('import-x/no-cycle')
  })

  it('refuse an import up a floor, static or dynamic: refunds/ never imports cli/', async () => {
    expect(
      await refused(
        'src/lib/refunds/probe.ts',
        "import {GwCommand} from '../cli/base-command.js'\nexport {GwCommand}\n",
      ),
    ).toContain('no-restricted-imports')
    const lazy = "export const load = () => import('../cli/base-command.js')\n"
    expect(await refused('src/lib/refunds/probe.ts', lazy)).toContain('no-restricted-syntax')
    expect(
      await refused('src/lib/refunds/probe.ts', "export const load = () => import('../orders/service.js')\n"),
    ).toEqual([])
  })

  it('refuse a loose module of src/lib importing a folder, and cli/ importing a command', async () => {
    expect(await refused('src/lib/probe.ts', "import {x} from './refunds/refund.js'\nexport {x}\n")).toContain(
      'no-restricted-imports',
    )
    const command = "export const load = () => import('../../commands/refund/create.js')\n"
    expect(await refused('src/lib/cli/probe.ts', command)).toContain('no-restricted-syntax')
  })

  it('refuse a function of 120 lines in src/lib, and take one of 80', async () => {
    const fn = (n: number) => `export function long() {\n  let x = 0\n${lines(n - 4)}\n  return x\n}\n`
    expect(await refused('src/lib/refunds/probe.ts', fn(120))).toContain('max-lines-per-function')
    expect(await refused('src/lib/refunds/probe.ts', fn(80))).toEqual([])
  })

  it('count every line of a file, blank and comment lines too: 400 for a module, 80 for a command', async () => {
    const module = (n: number) => `export const x = 1\n${Array.from({length: n - 1}, () => '// why').join('\n')}\n`
    expect(await refused('src/lib/refunds/probe.ts', module(401))).toContain('max-lines')
    expect(await refused('src/lib/refunds/probe.ts', module(400))).toEqual([])
    expect(await refused('src/commands/refund/probe.ts', module(81))).toContain('max-lines')
    // A command's run beside it is held to a module's limit, not a command's.
    expect(await refused('src/commands/refund/probe.run.ts', module(81))).toEqual([])
  })
})
