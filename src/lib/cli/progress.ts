/**
 * Progress of long work, on stderr: a bar on a terminal (done, failed, rate, time left),
 * a plain line every few seconds otherwise, nothing under --json unless on a terminal.
 */
import type {SingleBar} from 'cli-progress'

import type {Progress} from '../batch.js'
import type {Output} from '../io/streams.js'

const PLAIN_EVERY_MS = 5000

/** `failedWord` names the rows counted apart: failed refunds, mismatched orders. Written to `stderr`. */
export async function startProgress(
  stderr: Output,
  label: string,
  total: number | undefined,
  enabled = true,
  failedWord = 'failed',
): Promise<Progress> {
  const started = Date.now()
  let done = 0
  let failed = 0
  let stopped = false
  const rate = () => done / Math.max(0.001, (Date.now() - started) / 1000)
  if (!enabled)
    return {
      tick: (f) => {
        done++
        if (f) failed++
      },
      stop: () => {},
    }
  if (stderr.isTTY) {
    const {default: cliProgress} = await import('cli-progress')
    const bar: SingleBar = new cliProgress.SingleBar(
      {
        stream: stderr as NodeJS.WriteStream,
        format:
          total === undefined
            ? `${label} {value} done | {failed} ${failedWord} | {speed}/s`
            : `${label} {bar} {value}/{total} | {failed} ${failedWord} | {speed}/s | {eta_formatted} left`,
        hideCursor: true,
        clearOnComplete: false,
        etaBuffer: 50,
      },
      cliProgress.Presets.shades_classic,
    )
    bar.start(total ?? 0, 0, {failed: 0, speed: '0.0'})
    return {
      tick(f) {
        done++
        if (f) failed++
        if (!stopped) bar.update(done, {failed, speed: rate().toFixed(1)})
      },
      stop() {
        if (!stopped) bar.stop()
        stopped = true
      },
    }
  }
  let last = Date.now()
  const line = () => {
    const left = total ? Math.max(0, Math.round((total - done) / Math.max(rate(), 0.001))) : undefined
    stderr.write(
      `${label}: ${done}${total ? `/${total}` : ''} done, ${failed} ${failedWord}, ${rate().toFixed(1)}/s${left !== undefined ? `, ~${left}s left` : ''}\n`,
    )
  }
  return {
    tick(f) {
      done++
      if (f) failed++
      if (!stopped && Date.now() - last >= PLAIN_EVERY_MS) {
        last = Date.now()
        line()
      }
    },
    stop() {
      if (!stopped) line()
      stopped = true
    },
  }
}

/** A line of status that changes (a spinner while waiting): rewritten in place on a terminal, else every tenth update. */
export function statusLine(stderr: Output): {update(text: string): void; end(): void} {
  const interactive = Boolean(stderr.isTTY)
  let updates = 0
  return {
    update(text) {
      if (interactive) stderr.write(`\r${text}   `)
      else if (updates % 10 === 0) stderr.write(`${text}\n`)
      updates++
    },
    end() {
      if (interactive && updates) stderr.write('\n')
    },
  }
}
