/**
 * gw's commands run in-process, from src/ (no build), with streams and an environment of their
 * own: the command tier's way to run `gw ARGS...` as the spawned tests do, in a fraction of the
 * time. What only a process shows (signals, a kill and the resume after it, the installed forms)
 * stays with the spawned tests (cli.ts).
 */
import {randomUUID} from 'node:crypto'
import {createReadStream, existsSync, openSync, unlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {PassThrough} from 'node:stream'

import {Config} from '@oclif/core'

import type {CommandIO} from '../../src/lib/io/streams.js'
import type {CliOptions, CliResult} from './cli.js'
import {gwEnvironment} from './gw-under-test.js'
import {REPO_ROOT} from './shared.js'

let loaded: Promise<Config> | undefined

/** A command class as runIn needs it (GwCommand's static runIn). */
type CommandClass = {runIn(id: string, argv: string[], config: Config, context: {io: CommandIO}): Promise<number>}

/** The command `args` begin with (its topics and verb), as oclif finds it: the longest that names a file. */
async function commandOf(args: string[]): Promise<{id: string; command: CommandClass; argv: string[]}> {
  for (let words = Math.min(3, args.length); words > 0; words--) {
    const path = join(REPO_ROOT, 'src', 'commands', ...args.slice(0, words)) + '.ts'
    if (!/^[a-z-]+$/.test(args[words - 1]!) || !existsSync(path)) continue
    const {default: command} = (await import(path)) as {default: CommandClass}
    return {id: args.slice(0, words).join(':'), command, argv: args.slice(words)}
  }
  throw new Error(
    `no command of gw begins ${args.slice(0, 3).join(' ')}: a mistyped command is oclif's, run it with {process: true}`,
  )
}

/** A stream that keeps what is written to it, not a terminal. */
function capture(): {stream: PassThrough; text: () => string} {
  const stream = new PassThrough()
  const chunks: Buffer[] = []
  stream.on('data', (chunk: Buffer) => chunks.push(chunk))
  return {stream, text: () => Buffer.concat(chunks).toString('utf8')}
}

/**
 * Runs `gw ARGS...` in this process, as a user would run it without a terminal: the environment is
 * the test's without gw's own variables (as cli.ts gives a spawned gw), then `options.env`.
 */
export async function runInProcess(args: string[], options: CliOptions = {}): Promise<CliResult> {
  // A time zone is the process's: a run that names one needs a process of its own (cli.ts, `process`).
  if (options.env?.TZ !== undefined && options.env.TZ !== process.env.TZ)
    throw new Error(`TZ=${options.env.TZ} is a process's: run gw with {process: true}`)
  // So is --zone, the clock of the run (the sandbox of this process would write its times on it too).
  if (args.some((arg) => arg === '--zone' || arg.startsWith('--zone=')) && args[0] !== 'desk')
    throw new Error(`--zone sets the run's clock, a process's: run gw ${args.join(' ')} with {process: true}`)
  loaded ??= Config.load({root: REPO_ROOT})
  const config = await loaded
  const {id, command, argv} = await commandOf(args)
  const stdout = capture()
  const stderr = capture()
  if (options.terminal) Object.assign(stdout.stream, {isTTY: true, columns: options.terminal})
  // Standard input as a process is given it: a file descriptor (a key given as `-` is read from it whole).
  const inputFile = join(tmpdir(), `gw-stdin-${randomUUID()}`)
  writeFileSync(inputFile, options.input ?? '')
  const fd = openSync(inputFile, 'r')
  unlinkSync(inputFile)
  // Its descriptor stays open to the run's end, as a process's 0 does, whoever reads the stream.
  const stdin = createReadStream(inputFile, {fd, autoClose: false})
  const env = gwEnvironment(options.env)
  const io = {stdout: stdout.stream, stderr: stderr.stream, stdin, env}
  // Destroyed, the stream closes its descriptor.
  const code = await command.runIn(id, argv, config, {io}).finally(() => stdin.destroy())
  // What was written has been read by the captures once the streams end.
  await Promise.all([stdout, stderr].map(({stream}) => new Promise((resolve) => stream.end(resolve))))
  const out = stdout.text()
  const err = stderr.text()
  return {
    code,
    signal: null,
    stdout: out,
    stderr: err,
    json<T>() {
      try {
        return JSON.parse(out) as T
      } catch {
        throw new Error(`stdout is not one JSON document:\n${out}\n--- stderr:\n${err}`)
      }
    },
  }
}
