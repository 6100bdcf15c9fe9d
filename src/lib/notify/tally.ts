/**
 * What a listener has seen, counted as a person asks it: payments (a payment is notified once
 * and delivered until acknowledged), deliveries, rejections; with a forward target, the payments
 * the endpoint acknowledged, which alone say the endpoint got them. A forward that failed is not
 * "all is well", whatever the listener did.
 */
import type {Outcome} from '../errors.js'
import type {NotificationEvent} from './listener.js'

export class ListenTally {
  payments = 0
  deliveries = 0
  rejected = 0
  /** Forwards the endpoint did not acknowledge (no answer, or not an acknowledgement). */
  forwardsFailed = 0
  /** Payments the endpoint acknowledged (with a forward target), or the listener did (without). */
  acknowledged = 0
  readonly #payments = new Map<string, {acknowledged: boolean; unreachable: boolean}>()

  constructor(readonly forwarding: boolean) {}

  add(event: NotificationEvent): void {
    if (event.verdict === 'REJECTED') {
      this.rejected++
      return
    }
    this.deliveries++
    const key = event.gw_order_no ?? event.mch_order_no ?? ''
    let payment = this.#payments.get(key)
    if (!payment) {
      payment = {acknowledged: false, unreachable: false}
      this.#payments.set(key, payment)
      this.payments++
    }
    const forwarded = event.forwarded
    const acknowledged = !this.forwarding || Boolean(forwarded?.acknowledged)
    if (!acknowledged) {
      this.forwardsFailed++
      payment.unreachable = forwarded?.status === undefined
    }
    if (acknowledged && !payment.acknowledged) this.acknowledged++
    payment.acknowledged ||= acknowledged
  }

  /** How the listener ends: done when every payment was acknowledged, transport when the endpoint could not be reached, refused when it answered otherwise. */
  get outcome(): Outcome {
    const open = [...this.#payments.values()].filter((p) => !p.acknowledged)
    if (!open.length) return 'done'
    return open.some((p) => p.unreachable) ? 'transport' : 'refused'
  }
}
