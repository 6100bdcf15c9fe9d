/**
 * gw order create's showing: the QR code drawn where it was asked for (--qr: wherever output
 * goes; by default only on a terminal, and said when not), saved with --qr-out, and noted in the
 * order's story (where it was drawn, or why not); with --wait, the wait on a status line.
 */
import {Flags} from '@oclif/core'

import {type Ended, OUTCOME, type SuggestedFor} from '../../lib/errors.js'
import type {FoundOrder} from '../../lib/orders/finding.js'
import {type CreatedOrder, type OrderService, waitEnded} from '../../lib/orders/service.js'
import {waitView, waitingLine} from '../../lib/render/orders.js'
import type {QrStyle} from '../../lib/render/qr.js'
import type {Showing} from '../../lib/cli/command-ports.js'
import {statusLine} from '../../lib/cli/progress.js'

/** How the QR code is shown: drawn (where), in which style, saved. */
export const qrFlags = {
  'qr-out': Flags.string({description: 'save the QR image to FILE (for airpay: the code_url image)'}),
  qr: Flags.boolean({
    description:
      'draw the QR code (default: when stdout is a terminal); --qr draws it wherever stdout goes (on stderr under --json)',
    allowNo: true,
  }),
  'qr-style': Flags.string({
    description:
      "your terminal's text: dark-on-light (a light theme) or light-on-dark (a dark theme), so the code shows dark on light (default: as the terminal reports, else dark-on-light)",
    options: ['dark-on-light', 'light-on-dark'],
  }),
}

/** Shows the order's QR code as asked: the file it was saved to, if any. */
export async function showOrderQr(
  created: CreatedOrder,
  flags: {qr?: boolean; 'qr-style'?: string; 'qr-out'?: string},
  orders: OrderService,
  show: Showing,
): Promise<string | undefined> {
  const {showQr, terminalStyle} = await import('../../lib/render/qr.js')
  const style = (flags['qr-style'] as QrStyle | undefined) ?? terminalStyle()
  const qr = await showQr(created, {notAsked: notAsked(flags.qr, show), style, file: flags['qr-out']})
  if (qr.drawn && show.json) show.note(qr.drawn)
  else if (qr.drawn) show.log(qr.drawn)
  else if (flags.qr === undefined && !show.json && !flags['qr-out'] && !qr.notes.length)
    show.note('QR code not drawn: stdout is not a terminal. --qr draws it anyway; --qr-out FILE saves the image.')
  qr.notes.forEach((note) => show.note(note))
  const drawn = qr.drawn ? (show.json ? 'stderr' : show.io.stdout.isTTY ? 'terminal' : 'stdout') : undefined
  orders.noteQr(created, {drawn, not_drawn: qr.not_drawn, file: qr.qr_file})
  return qr.qr_file
}

/** Why the QR code is not asked for: --no-qr; by default, stdout is the --json document, or not a terminal. */
function notAsked(asked: boolean | undefined, show: Showing): string | undefined {
  if (asked !== undefined) return asked ? undefined : '--no-qr was given'
  if (show.json) return 'stdout was the --json document'
  return show.io.stdout.isTTY ? undefined : 'stdout was not a terminal'
}

/**
 * Waits for the order's payment (--wait), the wait shown on a status line, then the order as it
 * ended: the run's end, and the exit it makes (paid, failed, or the wait ran out).
 */
export async function waitShown(
  created: CreatedOrder,
  timeout: number | undefined,
  orders: OrderService,
  show: Showing & {profile: SuggestedFor},
): Promise<{waited: {state: string; record?: FoundOrder['record']}} & Ended> {
  const status = statusLine(show.io.stderr)
  const onPoll = (state: string, deadline: number) => status.update(waitingLine(state, deadline))
  const found = await orders.waitForPayment(created, timeout, onPoll)
  status.end()
  const view = waitView(created, found, show.profile)
  if (view.text) show.log(view.text)
  for (const note of view.notes ?? []) show.note(note)
  return {waited: {state: found?.record.result ?? 'WAITING', record: found?.record}, [OUTCOME]: waitEnded(found)}
}
