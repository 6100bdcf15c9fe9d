import {type ChildProcess, spawn} from 'node:child_process'
import {chmodSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {REPO_ROOT, tempDir} from './shared.js'

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
}

const BIN = join(REPO_ROOT, 'bin', 'run.js')

/** Runs the built `gw` as a child process, as a user would. */
export function gw(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return spawnGw(args, options).result
}

/** A folder holding a `gw` that runs the built one, for a shell's PATH. */
let gwOnPath: string | undefined
function pathWithGw(): string {
  if (!gwOnPath) {
    gwOnPath = tempDir('gw-path-')
    const script = join(gwOnPath, 'gw')
    writeFileSync(script, `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`)
    chmodSync(script, 0o755)
  }
  return `${gwOnPath}:${process.env.PATH ?? ''}`
}

/** Runs a command line gw printed (`gw refund create ...`) as a user pasting it runs it: by a shell, `gw` on its PATH. */
export function gwShell(line: string, options: CliOptions = {}): Promise<CliResult> {
  return spawnProcess('sh', ['-c', line], {...options, env: {PATH: pathWithGw(), ...options.env}}).result
}

/** The same, with the child at hand (to send it signals). */
export function spawnGw(args: string[], options: CliOptions = {}): {child: ChildProcess; result: Promise<CliResult>} {
  return spawnProcess(process.execPath, [BIN, ...args], options)
}

function spawnProcess(
  file: string,
  args: string[],
  options: CliOptions,
): {child: ChildProcess; result: Promise<CliResult>} {
  const child = spawn(file, args, {
    cwd: options.cwd ?? REPO_ROOT,
    // As a user runs it: not under the test runner's NODE_ENV (oclif warns more in 'test').
    env: {
      ...process.env,
      NODE_ENV: undefined,
      NO_COLOR: '1',
      GW_PROFILE: undefined,
      GW_APPID: undefined,
      ...options.env,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  const result = new Promise<CliResult>((resolve, reject) => {
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000)
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
