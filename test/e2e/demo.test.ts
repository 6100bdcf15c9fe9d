/** The README's first command: the demo runs the whole flow against its own sandbox, each step said and pasteable in the checkout (npx gw). */
import {spawnSync} from 'node:child_process'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {REPO_ROOT} from '../helpers/shared.js'
import {gwEnvironment} from '../helpers/gw-under-test.js'

describe('npm run demo (without its build step)', () => {
  it('runs every step to the end, each with one line of why and a command that can be pasted', () => {
    const run = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts', 'demo.js')], {
      encoding: 'utf8',
      env: gwEnvironment(),
      timeout: 120_000,
    })
    expect(run.status, run.stderr).toBe(0)
    const lines = run.stdout.split('\n')
    const commands = lines.flatMap((line, i) => (line.startsWith('$ npx gw ') ? [[lines[i - 1]!, line]] : []))
    expect(commands.length).toBeGreaterThanOrEqual(10)
    for (const [why] of commands) expect(why).toMatch(/^# \S/)
    expect(run.stdout).toContain("--product 'Green tea x2'")
    expect(run.stdout).toContain('Done.')
  })
})
