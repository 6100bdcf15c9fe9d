import {type ChildProcess, spawn} from 'node:child_process'
import {chmodSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {gwEnvironment, gwShellLine, gwUnderTest} from './gw-under-test.js'
import {HANG_MS, REPO_ROOT, tempDir} from './shared.js'

export interface CliResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  json<T = Record<string, unknown>>(): T
}

export interface CliOptions {
  env?: Record<string, string | undefined>
  input?: string
  timeoutMs?: number
  cwd?: string
  /**
   * Runs gw in a process of its own in the command tier too, for what only a process shows: a
   * time zone (TZ), a mistyped command (oclif's hook), a build's identity (dist/build.json), a
   * preload or a database held by another process.
   */
  process?: boolean
  /**
   * stdout is a terminal of this many columns (in-process only: a spawned gw on a terminal is
   * terminal.ts's). Without it stdout is a pipe, as a captured process's is.
   */
  terminal?: number
}

/** Runs the `gw` under test (gw-under-test.ts) as a child process, as a user would. */
export function gw(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return spawnGw(args, options).result
}

/** The same, with the child at hand (to send it signals). */
export function spawnGw(args: string[], options: CliOptions = {}): {child: ChildProcess; result: Promise<CliResult>} {
  if (options.terminal)
    throw new Error("a spawned gw on a terminal is terminal.ts's: `terminal` is for in-process runs")
  const [program, ...first] = gwUnderTest()
  return start(program!, [...first, ...args], options)
}

/** The command that ends the line of `text` where `lead` is said (advice puts it last, nothing after it). */
export function suggested(text: string, lead: string): string {
  const line = text.split('\n').find((l) => l.includes(lead))
  if (!line) throw new Error(`no "${lead}" in:\n${text}`)
  return line.slice(line.indexOf(lead) + lead.length)
}

let onPath: string | undefined

/** A folder whose `gw` is the gw under test, as a shell finds it first on the PATH (made once a run). */
export function gwOnPath(): string {
  if (!onPath) {
    onPath = tempDir('gw-on-path-')
    writeFileSync(join(onPath, 'gw'), `#!/bin/sh\nexec ${gwShellLine([])} "$@"\n`)
    chmodSync(join(onPath, 'gw'), 0o755)
  }
  return onPath
}

/**
 * A command gw printed (advice, a resume line), run as a person pastes it into a shell: by
 * /bin/sh, with `gw` on the PATH being the gw under test. A command that only looks right fails here.
 */
export function asPrinted(line: string, options: CliOptions = {}): Promise<CliResult> {
  if (!line.startsWith('gw ')) throw new Error(`not a gw command: ${line}`)
  const env = {PATH: `${gwOnPath()}:${process.env.PATH}`, ...options.env}
  return start('/bin/sh', ['-c', line], {...options, env}).result
}

function start(
  command: string,
  args: string[],
  options: CliOptions,
): {child: ChildProcess; result: Promise<CliResult>} {
  const child = spawn(command, args, {
    cwd: options.cwd ?? REPO_ROOT,
    // As a user runs it: not under the test runner's NODE_ENV (oclif warns more in 'test'), nor the developer's GW_ variables.
    env: gwEnvironment(options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  const result = new Promise<CliResult>((resolve, reject) => {
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? HANG_MS)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({
        code,
        signal,
        stdout,
        stderr,
        json<T>() {
          try {
            return JSON.parse(stdout) as T
          } catch {
            throw new Error(`stdout is not one JSON document:\n${stdout}\n--- stderr:\n${stderr}`)
          }
        },
      })
    })
    child.stdin.end(options.input ?? '')
  })
  return {child, result}
}
