/**
 * A refund on the desk is a draft first: what the confirmation page shows (order, amount, currency,
 * the gateway), then sent once. A second submit of the confirmation (a double click, the browser
 * sending the form again) waits for the first and shows its outcome; a reload shows the same page;
 * a second tab's refund of an order whose refund is under way is not sent, and one made after it
 * meets the refund service's again-check. Only an outcome not known yet may be settled again,
 * which the service does by looking the refund up first, never by a second refund.
 */
import {randomBytes} from 'node:crypto'

import type {DeskOutcome} from './refunding.js'

/** The order as the confirmation shows it, which the gateway's order must still be when the refund is sent. */
export interface DraftOrder {
  mch_order_no: string
  gw_order_no?: string
  channel: string
  total_fee: number
  fee_type: string
}

export interface Draft {
  id: string
  order: DraftOrder
  refund_fee: number
  /** The amount as a decimal in the order's currency: what is asked of the service. */
  amount: string
  reason: string
  /** `asking`: the confirmation is shown; `sending`: the refund is under way; `done`: its outcome is known to the desk. */
  state: 'asking' | 'sending' | 'done'
  /** The user said yes to the again-check's question (an identical refund made recently). */
  again: boolean
  outcome?: DeskOutcome
}

/** Drafts kept by a desk's run: a day of a busy desk, the oldest forgotten first. */
const KEPT = 2000

export class Drafts {
  readonly #drafts = new Map<string, Draft>()
  /** The send under way of each draft sending. */
  readonly #sending = new Map<string, Promise<DeskOutcome>>()
  /** The orders with a refund under way from this desk. */
  readonly #orders = new Set<string>()

  create(order: DraftOrder, refund: {refund_fee: number; amount: string; reason: string}): Draft {
    const draft: Draft = {id: randomBytes(12).toString('base64url'), order, ...refund, state: 'asking', again: false}
    this.#drafts.set(draft.id, draft)
    if (this.#drafts.size > KEPT) {
      const oldest = [...this.#drafts.values()].find((d) => d.state !== 'sending')
      if (oldest) this.#drafts.delete(oldest.id)
    }
    return draft
  }

  get(id: string): Draft | undefined {
    return this.#drafts.get(id)
  }

  /** Resolves once no refund of this desk is under way (each has its outcome). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#sending.values()])
  }

  /** Every draft whose refund was sent or asked about, oldest first: what the desk's summary says. */
  done(): Draft[] {
    return [...this.#drafts.values()].filter((d) => d.outcome && d.outcome.kind !== 'ask_again')
  }

  /**
   * Sends the draft's refund by `run`, once: a draft sending is waited for, a draft done gives its
   * outcome again (unless `settle` asks to settle one not known yet), and an order with a refund
   * under way from another draft is not refunded by this one.
   */
  async send(draft: Draft, run: () => Promise<DeskOutcome>, settle = false): Promise<DeskOutcome> {
    const sending = this.#sending.get(draft.id)
    if (sending) return sending
    if (draft.state === 'done' && draft.outcome && !(settle && draft.outcome.kind === 'not_known')) return draft.outcome
    if (this.#orders.has(draft.order.mch_order_no))
      return {
        kind: 'not_refunded',
        said: [
          `Another refund of order ${draft.order.mch_order_no} is being sent from this desk (another tab, or another form): nothing was sent by this one.`,
        ],
        next: "Wait for it, then look at the order's story before asking again.",
      }
    draft.state = 'sending'
    this.#orders.add(draft.order.mch_order_no)
    const done = run()
      .then((outcome) => {
        draft.outcome = outcome
        // The again-check asked: the same confirmation, with its question, is shown again.
        draft.state = outcome.kind === 'ask_again' ? 'asking' : 'done'
        return outcome
      })
      .finally(() => {
        if (draft.state === 'sending') draft.state = 'asking'
        this.#sending.delete(draft.id)
        this.#orders.delete(draft.order.mch_order_no)
      })
    this.#sending.set(draft.id, done)
    return done
  }
}
