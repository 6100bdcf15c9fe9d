/**
 * A guide of docs/ followed as its reader would, line for line: every command of its `sh` blocks
 * run as printed by /bin/sh, in order, with `gw` on the PATH being the gw under test, in a home
 * and a folder of their own. The lines name the ports and paths a reader's machine has (8787,
 * 8788, ~/.config/gw), so a guide runs in a network of its own (a user and network namespace,
 * `unshare`), where those ports are free whatever else runs on this machine; files are shared.
 *
 * What a guide's text says is what the session does:
 * - a line whose comment says "in a terminal of its own" keeps running beside the next ones,
 *   once it has said where it is listening (a sandbox, a listener), and is stopped with Ctrl-C
 *   when the guide is done (`stop`);
 * - a line whose comment says "(exit N)" is expected to end N, any other 0;
 * - a fenced block or a table marked `<!-- file: NAME -->` is a file the reader has: written into
 *   the folder before the lines after it run (a table marked with a `.xlsx` name, as a workbook).
 */
import {type ChildProcess, spawn} from 'node:child_process'
import {mkdirSync, writeFileSync} from 'node:fs'
import {constants} from 'node:os'
import {join} from 'node:path'

import {gwOnPath} from './cli.js'
import {gwEnvironment} from './gw-under-test.js'
import {HANG_MS, removeDir, tempDir} from './shared.js'
import {writeWorkbook} from './workbooks.js'

/** A command of a guide: as printed (continuation lines kept), what it should end with, whether it keeps running. */
export interface GuideLine {
  line: string
  exit: number
  background: boolean
}

/** What a guide holds, in its order: the commands of its `sh` blocks and the files it gives the reader. */
export type GuideStep =
  | {kind: 'commands'; block: number; lines: GuideLine[]; runBy?: string}
  | {kind: 'file'; name: string; content: string; table?: string[][]}

const COMMENT = /\s#\s.*$/

/** The commands of a `sh` block: a line and its continuations (a trailing `\`, an open quote) are one command. */
function commandsOf(block: string): GuideLine[] {
  const commands: GuideLine[] = []
  let pending = ''
  for (const raw of block.split('\n')) {
    const text = pending ? `${pending}\n${raw}` : raw
    const open = (text.replace(COMMENT, '').match(/(?<!\\)"/g) ?? []).length % 2 === 1
    if (text.trimEnd().endsWith('\\') || open) {
      pending = text
      continue
    }
    pending = ''
    if (!text.trim() || text.trim().startsWith('#')) continue
    const comment = /\s#\s(.*)$/.exec(text)?.[1] ?? ''
    commands.push({
      line: text.trim(),
      exit: Number(/\(exit (\d+)\b/.exec(comment)?.[1] ?? 0),
      background: /in a terminal of its own/.test(comment),
    })
  }
  if (pending) throw new Error(`a command of a guide is never closed: ${pending}`)
  return commands
}

/** A block's lines without the indentation of the list item it stands in. */
const dedent = (lines: string[]) => {
  const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => /^ */.exec(l)![0].length))
  return lines.map((l) => l.slice(indent)).join('\n')
}

/** The steps of a guide's markdown, in order. */
export function stepsOf(markdown: string): GuideStep[] {
  const steps: GuideStep[] = []
  const lines = markdown.split('\n')
  let file: string | undefined
  // A block marked `<!-- install: NAME -->` is run by the installed tests (readme-install), as written;
  // the README's `<!-- quick start: checkout -->` sets up a clone and runs its tests, as CI does.
  let runBy: string | undefined
  let blocks = 0
  for (let i = 0; i < lines.length; i++) {
    const mark = /^\s*<!-- (file|install|quick start): (\S+) -->\s*$/.exec(lines[i]!)
    if (mark?.[1] === 'file') file = mark[2]
    else if (mark) runBy = `${mark[1]}: ${mark[2]}`
    if (mark) continue
    const fence = /^(\s*)```(\w*)\s*$/.exec(lines[i]!)
    if (fence) {
      const end = lines.findIndex((line, j) => j > i && line.trim() === '```')
      const body = dedent(lines.slice(i + 1, end))
      if (file) steps.push({kind: 'file', name: file, content: `${body}\n`})
      else if (fence[2] === 'sh') steps.push({kind: 'commands', block: ++blocks, lines: commandsOf(body), runBy})
      file = undefined
      runBy = undefined
      i = end
      continue
    }
    if (file && lines[i]!.trim().startsWith('|')) {
      let end = i
      while (lines[end]?.trim().startsWith('|')) end++
      const rows = lines
        .slice(i, end)
        .filter((row) => !/^\s*\|[\s|:-]+\|\s*$/.test(row))
        .map((row) =>
          row
            .trim()
            .slice(1, -1)
            .split('|')
            .map((cell) => cell.trim()),
        )
      steps.push({kind: 'file', name: file, content: '', table: rows})
      file = undefined
      i = end - 1
    }
  }
  return steps
}

export interface LineResult {
  line: string
  /** As a shell says it: the exit code, or 128 and the number of the signal that ended it; null while it runs. */
  code: number | null
  stdout: string
  stderr: string
}

/** Where a guide is followed: a network, a home and a folder of its own, the lines left running. */
export class GuideSession {
  readonly home: string
  readonly folder: string
  readonly #scratch: string
  readonly #holder: ChildProcess
  readonly #running: {line: string; child: ChildProcess; output: () => LineResult}[] = []
  readonly #env: Record<string, string | undefined>
  /** The files of the guide written so far. */
  readonly wrote = new Set<string>()

  private constructor(holder: ChildProcess, scratch: string) {
    this.#holder = holder
    this.#scratch = scratch
    this.home = join(scratch, 'home')
    this.folder = join(this.home, 'work')
    mkdirSync(this.folder, {recursive: true})
    // The reader's environment: their home, nothing of this machine's gw, the gateway's home zone.
    const xdg = Object.fromEntries(
      Object.keys(process.env)
        .filter((name) => name.startsWith('XDG_'))
        .map((name) => [name, undefined]),
    )
    this.#env = gwEnvironment({
      ...xdg,
      HOME: this.home,
      PATH: `${gwOnPath()}:/usr/local/bin:/usr/bin:/bin`,
      TZ: 'Asia/Bangkok',
    })
  }

  /** A session whose network is its own: a process holding a user and network namespace, its loopback up. */
  static async start(): Promise<GuideSession> {
    const scratch = tempDir('gw-guide-')
    const holder = spawn(
      'unshare',
      ['-rn', '--', '/bin/sh', '-c', 'ip link set lo up && echo up && exec sleep 86400'],
      {
        env: {...process.env, PATH: `/usr/sbin:/sbin:${process.env.PATH}`},
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let said = ''
    await new Promise<void>((resolve, reject) => {
      holder.stdout!.on('data', (chunk: Buffer) => (said += chunk.toString()).includes('up') && resolve())
      holder.stderr!.on('data', (chunk: Buffer) => (said += chunk.toString()))
      holder.once('exit', () => reject(new Error(`no network of its own for the guide (unshare -rn): ${said}`)))
    })
    return new GuideSession(holder, scratch)
  }

  /** `line` run by bash inside the session's network, in its folder, as its own process group (as a terminal runs it). */
  #spawn(line: string): {child: ChildProcess; output: () => LineResult} {
    const child = spawn(
      'nsenter',
      ['-t', String(this.#holder.pid), '-U', '-n', '--preserve-credentials', '--', '/bin/bash', '-c', line],
      {cwd: this.folder, env: this.#env, stdio: ['ignore', 'pipe', 'pipe'], detached: true},
    )
    let stdout = ''
    let stderr = ''
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const code = () => (child.signalCode ? 128 + constants.signals[child.signalCode] : child.exitCode)
    return {child, output: () => ({line, code: code(), stdout, stderr})}
  }

  /** Writes a file the guide gives its reader into the folder. */
  async write(step: Extract<GuideStep, {kind: 'file'}>): Promise<void> {
    const path = join(this.folder, step.name)
    this.wrote.add(step.name)
    if (!step.table) return writeFileSync(path, step.content)
    const cell = (text: string) => (/^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text)
    await writeWorkbook(path, [{name: 'Sheet1', rows: step.table.map((row) => row.map(cell))}])
  }

  /** Runs a command of the guide: to its end, or, for one that keeps running, until it says it is listening. */
  async run({line, background}: GuideLine, timeoutMs = HANG_MS): Promise<LineResult> {
    const {child, output} = this.#spawn(line)
    const ended = new Promise<void>((resolve) => child.once('close', () => resolve()))
    const deadline = Date.now() + timeoutMs
    if (background) {
      this.#running.push({line, child, output})
      const listening = () => /listening/i.test(output().stdout + output().stderr)
      while (child.exitCode === null && !listening() && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50))
      return output()
    }
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), timeoutMs)
    await ended
    clearTimeout(timer)
    return output()
  }

  /** Stops the lines left running with Ctrl-C, as their reader would: how each ended. */
  async stop(): Promise<LineResult[]> {
    const results: LineResult[] = []
    for (const {child, output} of this.#running.reverse()) {
      if (child.exitCode === null) {
        const ended = new Promise<void>((resolve) => child.once('close', () => resolve()))
        process.kill(-child.pid!, 'SIGINT')
        const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), HANG_MS)
        await ended
        clearTimeout(timer)
      }
      results.push(output())
    }
    this.#running.length = 0
    return results
  }

  async close(): Promise<void> {
    await this.stop()
    this.#holder.kill()
    removeDir(this.#scratch)
  }
}
