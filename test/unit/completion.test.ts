import {spawnSync} from 'node:child_process'
import {chmodSync, existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, describe, expect, it} from 'vitest'

import {type CompletableCommand, FILES, candidates, completionScript} from '../../src/commands/completion.run.js'
import {removeDir, tempDir} from '../helpers/shared.js'
import {gwEnvironment} from '../helpers/gw-under-test.js'

const commands: CompletableCommand[] = [
  {
    id: 'order:create',
    flags: {
      channel: {type: 'option', options: ['wechat', 'alipay', 'promptpay']},
      'fee-type': {type: 'option', options: ['THB', 'JPY']},
      profile: {type: 'option', char: 'p'},
      'qr-out': {type: 'option'},
      wait: {type: 'boolean'},
      secret: {type: 'boolean', hidden: true},
    },
  },
  {id: 'order:query', flags: {}},
  {id: 'reconcile', flags: {out: {type: 'option'}}},
  {id: 'internal', hidden: true, flags: {}},
]
const complete = (...words: string[]) => candidates(words, commands, () => ['live-shop', 'sandbox'])

describe('completion', () => {
  it('completes topics, then their commands, from what is typed; never hidden ones', () => {
    expect(complete('')).toEqual(['order', 'reconcile'])
    expect(complete('or')).toEqual(['order'])
    expect(complete('order', '')).toEqual(['create', 'query'])
  })

  it('completes the values of a flag: its choices, the stored profiles, or files for a path', () => {
    expect(complete('order', 'create', '--channel', '')).toEqual(['wechat', 'alipay', 'promptpay'])
    expect(complete('order', 'create', '--channel', 'p')).toEqual(['promptpay'])
    // In whatever case it is typed: the choice as it is spelled.
    expect(complete('order', 'create', '--fee-type', 't')).toEqual(['THB'])
    expect(complete('order', 'create', '--fee-type', 'jP')).toEqual(['JPY'])
    expect(complete('order', 'create', '--channel', 'WE')).toEqual(['wechat'])
    expect(complete('order', 'create', '-p', 'li')).toEqual(['live-shop'])
    expect(complete('order', 'create', '--qr-out', 'q')).toEqual([FILES])
    expect(complete('reconcile', 'ex')).toEqual([FILES])
  })

  it('completes after help the name of a command, or a guide; never a file', () => {
    const withHelp = [...commands, {id: 'help', flags: {all: {type: 'boolean'}}}]
    const help = (...words: string[]) =>
      candidates(['help', ...words], withHelp, () => [], ['finance', 'support', 'developers'])
    expect(help('')).toEqual(['developers', 'finance', 'help', 'order', 'reconcile', 'support'])
    expect(help('s')).toEqual(['support'])
    expect(help('order', '')).toEqual(['create', 'query'])
    expect(help('order', 'create', '')).toEqual([])
    expect(help('--a')).toEqual(['--all'])
  })

  it('completes the flags of the command, not the hidden ones', () => {
    expect(complete('order', 'create', '--')).toEqual(['--channel', '--fee-type', '--profile', '--qr-out', '--wait'])
    expect(complete('order', 'create', '--wait', '--f')).toEqual(['--fee-type'])
  })
})

describe('the bash script', () => {
  const dir = tempDir('gw-complete-')
  afterAll(() => removeDir(dir))

  it('offers the words it is given as they are, never running what they spell', () => {
    const marker = join(dir, 'ran')
    // A stand-in for gw answering with words a shell would expand.
    writeFileSync(join(dir, 'gw'), `#!/bin/sh\nprintf '%s\\n' 'shop' '$(touch ${marker})' '*'\n`)
    chmodSync(join(dir, 'gw'), 0o755)
    const line = `COMP_WORDS=(gw order query --profile ''); COMP_CWORD=4; _gw_complete; printf '%s\\n' "\${COMPREPLY[@]}"`
    const run = spawnSync('bash', ['-c', `${completionScript('bash', 'gw')}\n${line}`], {
      encoding: 'utf8',
      cwd: dir,
      env: gwEnvironment({PATH: `${dir}:${process.env.PATH}`}),
    })
    expect(run.stdout.split('\n').filter(Boolean)).toEqual(['shop', `$(touch ${marker})`, '*'])
    expect(existsSync(marker)).toBe(false)
  })
})

describe('the fish script', () => {
  const dir = tempDir('gw-complete-fish-')
  afterAll(() => removeDir(dir))

  it('hands fish the words typed and offers what gw answers; files where gw says so', () => {
    // A stand-in for gw: its arguments on one line in a file, then its answer.
    const asked = join(dir, 'asked')
    writeFileSync(
      join(dir, 'gw'),
      `#!/bin/sh\nprintf '%s|' "$@" > ${asked}\ncase "$4$7" in files) echo ${FILES};; ordert) echo THB;; *) printf '%s\\n' create query;; esac\n`,
    )
    chmodSync(join(dir, 'gw'), 0o755)
    writeFileSync(join(dir, 'receipt.csv'), '')
    const complete = (line: string) => {
      const run = spawnSync('fish', ['--no-config', '-c', `${completionScript('fish', 'gw')}\ncomplete -C '${line}'`], {
        encoding: 'utf8',
        cwd: dir,
        env: gwEnvironment({PATH: `${dir}:${process.env.PATH}`}),
      })
      expect(run.stderr).toBe('')
      return {offered: run.stdout.split('\n').filter(Boolean), asked: readFileSync(asked, 'utf8')}
    }
    expect(complete('gw order ')).toEqual({offered: ['create', 'query'], asked: 'completion|--words|--|order||'})
    expect(complete('gw order q')).toEqual({offered: ['query'], asked: 'completion|--words|--|order|q|'})
    expect(complete('gw files rec').offered).toEqual(['receipt.csv'])
    // gw's answer in another case than typed is offered: fish takes it for the word.
    expect(complete('gw order create --fee-type t').offered).toEqual(['THB'])
  })
})

describe('the PowerShell script', () => {
  // No PowerShell here (Debian has none): what it registers and how it asks gw, read.
  const script = completionScript('powershell', 'gw')

  it('registers a native completer for gw and gw.exe that asks gw with the words before the cursor', () => {
    expect(script).toMatch(/^# gw completion for PowerShell: add to your profile/)
    expect(script).toContain("Register-ArgumentCompleter -Native -CommandName 'gw', 'gw.exe' -ScriptBlock {")
    expect(script).toContain('$_.Extent.EndOffset -le $cursorPosition')
    expect(script).toContain('& gw completion --words @empty -- @words 2>$null')
  })

  it('says an empty word under the cursor with --empty-word (Windows PowerShell drops an empty argument), files as PowerShell does', () => {
    expect(script).toContain("$empty = @(if ($wordToComplete -eq '') { '--empty-word' })")
    expect(script).toContain(`if ($out.Count -eq 1 -and $out[0] -eq '${FILES}') { return }`)
    expect(script).toContain("[System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_)")
  })
})
