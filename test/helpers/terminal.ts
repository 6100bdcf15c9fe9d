import {execFileSync, spawnSync} from 'node:child_process'
import {join} from 'node:path'

import {REPO_ROOT} from './shared.js'

export const HAS_TMUX = spawnSync('tmux', ['-V']).status === 0

/** A command in a real terminal (tmux), typed at as a person would. */
export class Terminal {
  readonly session = `gw-test-${process.pid}-${Date.now()}`

  constructor(args: string[], env: Record<string, string>) {
    const exports = Object.entries({...env, NO_COLOR: '1'})
      .map(([k, v]) => `${k}='${v.replaceAll("'", "'\\''")}'`)
      .join(' ')
    const command = `env ${exports} ${process.execPath} ${join(REPO_ROOT, 'bin', 'run.js')} ${args.map((a) => `'${a}'`).join(' ')}; echo "EXIT=$?"; sleep 60`
    execFileSync('tmux', ['new-session', '-d', '-s', this.session, '-x', '200', '-y', '50', command])
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

  screen(): string {
    return execFileSync('tmux', ['capture-pane', '-t', this.session, '-p', '-S', '-200']).toString()
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
