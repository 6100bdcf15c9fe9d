import {execFileSync, spawnSync} from 'node:child_process'
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'

import {REPO_ROOT} from './shared.js'

export const HAS_TMUX = spawnSync('tmux', ['-V']).status === 0

/** A command in a real terminal (tmux), typed at as a person would. */
export class Terminal {
  readonly session = `gw-test-${process.pid}-${Date.now()}`
  /** Where the exit recorder writes how gw ended, when the terminal is to be closed under it. */
  readonly #exitFile?: string

  /**
   * `exitFile`: gw runs as a shell's job whose end is written there, so that the terminal can be
   * closed under it. Colours are off (NO_COLOR) unless `env` says `NO_COLOR: ''`.
   */
  constructor(args: string[], env: Record<string, string>, exitFile?: string) {
    const exports = Object.entries({NO_COLOR: '1', ...env})
      .map(([k, v]) => `${k}='${v.replaceAll("'", "'\\''")}'`)
      .join(' ')
    const gw = `${process.execPath} ${join(REPO_ROOT, 'bin', 'run.js')} ${args.map((a) => `'${a}'`).join(' ')}`
    const command = exitFile
      ? `env ${exports} ${process.execPath} ${join(REPO_ROOT, 'test', 'helpers', 'exit-recorder.mjs')} '${exitFile}' ${gw}`
      : `env ${exports} ${gw}; echo "EXIT=$?"; sleep 60`
    this.#exitFile = exitFile
    execFileSync('tmux', ['new-session', '-d', '-s', this.session, '-x', '200', '-y', '50', command])
  }

  /** The exit file: kill(), ended() and hangUp() need a terminal made with one. */
  get #exit(): string {
    if (!this.#exitFile) throw new Error('this needs the terminal made with an exit file')
    return this.#exitFile
  }

  /** Sends gw a signal from outside (a terminal made with an exit file), as `kill` would. */
  kill(signal: NodeJS.Signals): void {
    process.kill(Number(readFileSync(`${this.#exit}.pid`, 'utf8')), signal)
  }

  /** How gw ended, once it has (a terminal made with an exit file). */
  async ended(timeoutMs = 30_000): Promise<{code: number | null; signal: string | null}> {
    const file = this.#exit
    const deadline = Date.now() + timeoutMs
    while (!existsSync(file)) {
      if (Date.now() > deadline) throw new Error(`gw did not end within ${timeoutMs} ms`)
      await new Promise((r) => setTimeout(r, 100))
    }
    return JSON.parse(readFileSync(file, 'utf8')) as {code: number | null; signal: string | null}
  }

  /** Closes the terminal under gw (SIGHUP, its writes to the terminal failing) and resolves with how gw ended. */
  async hangUp(timeoutMs = 30_000): Promise<{code: number | null; signal: string | null}> {
    this.close()
    return this.ended(timeoutMs)
  }

  type(text: string): void {
    execFileSync('tmux', ['send-keys', '-t', this.session, '-l', text])
    execFileSync('tmux', ['send-keys', '-t', this.session, 'Enter'])
  }

  /** A key as tmux names it: C-c, Escape, Up. */
  press(key: string): void {
    execFileSync('tmux', ['send-keys', '-t', this.session, key])
  }

  erase(count: number): void {
    for (let i = 0; i < count; i++) execFileSync('tmux', ['send-keys', '-t', this.session, 'BSpace'])
  }

  /** What the terminal shows; `styled`: with the escape sequences of its colours and bold, as tmux keeps them. */
  screen(styled = false): string {
    const styles = styled ? ['-e'] : []
    return execFileSync('tmux', ['capture-pane', '-t', this.session, '-p', ...styles, '-S', '-200']).toString()
  }

  async waitFor(pattern: RegExp, timeoutMs = 20_000): Promise<string> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const screen = this.screen()
      if (pattern.test(screen)) return screen
      if (Date.now() > deadline) throw new Error(`terminal never showed ${pattern}:\n${screen}`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }

  close(): void {
    spawnSync('tmux', ['kill-session', '-t', this.session])
  }
}
