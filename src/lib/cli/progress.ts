/**
 * Progress of long work, on stderr: a bar on a terminal (done, failed, rate, time left),
 * a plain line every few seconds otherwise, nothing under --json unless on a terminal.
 */
import type {SingleBar} from 'cli-progress'

import type {Progress} from '../batch.js'
import type {Output} from '../io/streams.js'

const PLAIN_EVERY_MS = 5000

/**
 * Rows a second as people read them: over one second at least (the first rows done in a few
 * milliseconds are no rate of 15333.3/s), one decimal under 10, whole numbers above.
 */
export function rateText(done: number, elapsedMs: number): string {
  const perSecond = done / Math.max(1, elapsedMs / 1000)
  return `${perSecond < 10 ? perSecond.toFixed(1) : Math.round(perSecond).toLocaleString('en-US')}/s`
}

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
  const rate = () => done / Math.max(1, (Date.now() - started) / 1000)
  const rateNow = () => rateText(done, Date.now() - started)
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
            ? `${label} {value} done | {failed} ${failedWord} | {speed}`
            : `${label} {bar} {value}/{total} | {failed} ${failedWord} | {speed} | {eta_formatted} left`,
        hideCursor: true,
        clearOnComplete: false,
        etaBuffer: 50,
      },
      cliProgress.Presets.shades_classic,
    )
    bar.start(total ?? 0, 0, {failed: 0, speed: '0.0/s'})
    return {
      tick(f) {
        done++
        if (f) failed++
        if (!stopped) bar.update(done, {failed, speed: rateNow()})
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
      `${label}: ${done}${total ? `/${total}` : ''} done, ${failed} ${failedWord}, ${rateNow()}${left !== undefined ? `, ~${left}s left` : ''}\n`,
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
