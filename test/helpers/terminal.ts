import {execFileSync, spawnSync} from 'node:child_process'
import {existsSync, readFileSync, rmSync} from 'node:fs'
import {join} from 'node:path'

import {gwShellLine, shellEnvironment} from './gw-under-test.js'
import {HANG_MS, REPO_ROOT} from './shared.js'

export const HAS_TMUX = spawnSync('tmux', ['-V']).status === 0

/** A command in a real terminal (tmux), typed at as a person would. */
export class Terminal {
  readonly session = `gw-test-${process.pid}-${Date.now()}`
  /** Where the exit recorder writes how gw ended, when the terminal is to be closed under it. */
  readonly #exitFile?: string

  /**
   * `exitFile`: gw runs as a shell's job whose end is written there, so that the terminal can be
   * closed under it. Colours are off (NO_COLOR) unless `env` says `NO_COLOR: ''`. `columns`: its width.
   */
  constructor(args: string[], env: Record<string, string>, exitFile?: string, columns = 200) {
    const exports = Object.entries({NO_COLOR: '1', ...env})
      .map(([k, v]) => `${k}='${v.replaceAll("'", "'\\''")}'`)
      .join(' ')
    const gw = gwShellLine(args)
    const command = exitFile
      ? `env ${exports} ${process.execPath} ${join(REPO_ROOT, 'test', 'helpers', 'exit-recorder.mjs')} '${exitFile}' ${gw}`
      : `env ${exports} ${gw}; echo "EXIT=$?"; sleep 60`
    this.#exitFile = exitFile
    this.tmux('new-session', '-d', '-s', this.session, '-x', String(columns), '-y', '50', command)
  }

  /**
   * A tmux command to this terminal's own tmux server (-L): one server shared by every test, and by
   * other checkouts' tests on the machine, could be exiting with its last session just as another
   * terminal is made ("server exited unexpectedly").
   */
  tmux(...args: string[]): string {
    // The terminal's server, and gw in it, get what a spawned gw gets: never the developer's GW_ variables.
    return execFileSync('tmux', ['-L', this.session, ...args], {
      env: shellEnvironment({NO_COLOR: undefined}),
    }).toString()
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
  async ended(timeoutMs = HANG_MS): Promise<{code: number | null; signal: string | null}> {
    const file = this.#exit
    const deadline = Date.now() + timeoutMs
    while (!existsSync(file)) {
      if (Date.now() > deadline) throw new Error(`gw did not end within ${timeoutMs} ms`)
      await new Promise((r) => setTimeout(r, 100))
    }
    return JSON.parse(readFileSync(file, 'utf8')) as {code: number | null; signal: string | null}
  }

  /** Closes the terminal under gw (SIGHUP, its writes to the terminal failing) and resolves with how gw ended. */
  async hangUp(timeoutMs = HANG_MS): Promise<{code: number | null; signal: string | null}> {
    this.close()
    return this.ended(timeoutMs)
  }

  type(text: string): void {
    this.tmux('send-keys', '-t', this.session, '-l', text)
    this.tmux('send-keys', '-t', this.session, 'Enter')
  }

  /** A key as tmux names it: C-c, Escape, Up. */
  press(key: string): void {
    this.tmux('send-keys', '-t', this.session, key)
  }

  erase(count: number): void {
    for (let i = 0; i < count; i++) this.tmux('send-keys', '-t', this.session, 'BSpace')
  }

  /** What the terminal shows; `styled`: with the escape sequences of its colours and bold, as tmux keeps them. */
  screen(styled = false): string {
    const styles = styled ? ['-e'] : []
    return this.tmux('capture-pane', '-t', this.session, '-p', ...styles, '-S', '-200')
  }

  async waitFor(pattern: RegExp, timeoutMs = HANG_MS): Promise<string> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const screen = this.screen()
      if (pattern.test(screen)) return screen
      if (Date.now() > deadline) throw new Error(`terminal never showed ${pattern}:\n${screen}`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }

  close(): void {
    spawnSync('tmux', ['-L', this.session, 'kill-session', '-t', this.session])
    // Its server has ended with its one session; tmux leaves the server's socket behind.
    rmSync(join(process.env.TMUX_TMPDIR ?? '/tmp', `tmux-${process.getuid!()}`, this.session), {force: true})
  }
}
