/**
 * The gateway's rules: what each operation does to the ledger and what it answers. Request
 * shape (lengths, required fields, channel per operation) is checked before this, by the
 * shared protocol tables; here are the business checks of sections 2-8.
 */
import type {Operation, ResponseData} from '../../lib/gateway/protocol/index.js'
import type {Ledger, SandboxOrder} from '../ledger.js'
import type {Merchant} from '../merchants.js'
import {Book, type Outcome, type Params} from './book.js'
import {closeOrder, createOrder, pay, queryOrder, scanned} from './orders.js'
import {queryRefund, refund} from './refunds.js'

interface GatewayOptions {
  ledger: Ledger
  /** Divides every delay and lifetime. */
  timeScale: number
  /** Called when an order becomes paid (notifications). */
  onPaid: (order: SandboxOrder) => void
}

export class GatewayRules {
  readonly #book: Book

  constructor(private readonly options: GatewayOptions) {
    this.#book = new Book(options.ledger, options.timeScale)
  }

  /** `origin` is where the payer page lives; `refundProcessing` delays a refund (a fault). */
  execute<O extends Operation>(
    operation: O,
    merchant: Merchant,
    p: Params,
    context: {origin: string; refundProcessing: boolean},
  ): Promise<Outcome<ResponseData<O>>> | Outcome<ResponseData<O>> {
    const book = this.#book
    const outcomes: {[K in Operation]: () => Promise<Outcome<ResponseData<K>>> | Outcome<ResponseData<K>>} = {
      native_pay: () => createOrder(book, merchant, p, context.origin),
      order_query: () => queryOrder(book, merchant, p),
      order_refund: () => refund(book, merchant, p, context.refundProcessing),
      refund_query: () => queryRefund(book, merchant, p),
      order_close: () => closeOrder(book, merchant, p),
    }
    return outcomes[operation]()
  }

  scanned(order: SandboxOrder): SandboxOrder {
    return scanned(this.#book, order)
  }

  /** The payer confirmed (or declined). Returns a reason when the order cannot be paid. */
  pay(order: SandboxOrder, fail = false): string | undefined {
    const reason = pay(this.#book, order, fail)
    if (!reason && !fail) this.options.onPaid(order)
    return reason
  }
}
