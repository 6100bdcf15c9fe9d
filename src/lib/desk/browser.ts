/**
 * The browser opened on the desk, as `gh browse` and the Stripe CLI open theirs: the system's own
 * opener (xdg-open, open, or Windows' URL handler), started on its own, never waited for. The
 * address given is one that opens the desk once (a process's arguments can be read by other users of
 * the machine): by the time anyone could read it, the browser has used it up.
 */
import {spawn} from 'node:child_process'

const OPENERS: Record<string, [string, string[]]> = {
  darwin: ['open', []],
  win32: ['rundll32', ['url.dll,FileProtocolHandler']],
}

/** Opens `url` in the default browser; `failed` is told why when it cannot be. */
export function openBrowser(url: string, failed: (why: string) => void): void {
  const [command, args] = OPENERS[process.platform] ?? ['xdg-open', []]
  try {
    const child = spawn(command, [...args, url], {stdio: 'ignore', detached: true})
    child.on('error', (error: NodeJS.ErrnoException) => failed(`${command}: ${error.code ?? error.message}`))
    child.unref()
  } catch (error) {
    failed(`${command}: ${(error as Error).message}`)
  }
}
