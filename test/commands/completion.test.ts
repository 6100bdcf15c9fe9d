/** gw completion: the scripts of each shell, completing from gw itself. */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {gwOnPath} from '../helpers/cli.js'
import {type GwWorld, startWorld} from '../helpers/gw-env.js'
import {gwEnvironment} from '../helpers/gw-under-test.js'

let world: GwWorld

beforeAll(async () => {
  world = await startWorld()
})

afterAll(() => world.close())

describe('shell completion', () => {
  it('bash completes commands, flag values, the stored profile names and the guides, asking gw itself', async () => {
    const script = (await world.run(['completion', 'bash'])).stdout
    const {spawnSync} = await import('node:child_process')
    const complete = (...words: string[]) => {
      const line = `COMP_WORDS=(gw ${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length}; _gw_complete; printf '%s\\n' "\${COMPREPLY[@]}"`
      const run = spawnSync('bash', ['-c', `${script}\n${line}`], {
        encoding: 'utf8',
        env: gwEnvironment({PATH: `${gwOnPath()}:${process.env.PATH}`, GW_CONFIG_DIR: world.configDir}),
      })
      return run.stdout.trim().split('\n').filter(Boolean)
    }
    expect(complete('ref')).toEqual(['refund'])
    expect(complete('refund', 'l')).toEqual(['list'])
    expect(complete('order', 'create', '--fee-type', 'J')).toEqual(['JPY'])
    expect(complete('order', 'list', '--state', 'SU')).toEqual(['SUCCESS'])
    expect(complete('order', 'query', '--profile', 's')).toEqual(['sandbox'])
    expect(complete('help', 'fi')).toEqual(['finance'])
    expect(complete('help', 's')).toEqual(['sandbox', 'security', 'signature', 'support'])
  })

  it('fish completes from gw itself too; PowerShell gets its script; a shell gw has none for is named, exit 2', async () => {
    const script = (await world.run(['completion', 'fish'])).stdout
    const {spawnSync} = await import('node:child_process')
    const complete = (line: string) =>
      spawnSync('fish', ['--no-config', '-c', `${script}\ncomplete -C '${line}'`], {
        encoding: 'utf8',
        env: gwEnvironment({PATH: `${gwOnPath()}:${process.env.PATH}`, GW_CONFIG_DIR: world.configDir}),
      }).stdout.trim()
    expect(complete('gw ref')).toBe('refund')
    expect(complete('gw order list --state SU')).toBe('SUCCESS')
    expect(complete('gw order query --profile s')).toBe('sandbox')
    const powershell = await world.run(['completion', 'PowerShell'])
    expect(powershell.code).toBe(0)
    expect(powershell.stdout).toContain("Register-ArgumentCompleter -Native -CommandName 'gw', 'gw.exe'")
    const tcsh = await world.run(['completion', 'tcsh'])
    expect(tcsh.code).toBe(2)
    expect(tcsh.stdout).toBe('')
    expect(tcsh.stderr).toContain(
      'Error: gw has no completion for tcsh: it writes one for bash, zsh, fish, powershell.',
    )
  })
})
