/**
 * The history of one merchant on one gateway (`store.for(gateway)`): every question is asked of
 * that gateway's records, so a question for one cannot be asked of another's by construction.
 * Records of earlier versions whose gateway is not certain (store.ts) are shown in lists and
 * stories, marked `unattributed`, and never answer a question a decision about money rests on
 * (refundsOf, findRefund, hasRefunds, findOrder, claims).
 *
 * For a single refund the history is also the journal: its intent is committed with a synced
 * write before it is sent, its outcome after; one refund of an order at a time, by a claim taken
 * in a transaction, held by a lock the system holds for the claiming process (claims.ts).
 */
import {GwError} from '../errors.js'
import type {LocalDatabase} from '../io/database.js'
import {type ClaimHolder, type OrderClaim, claimOrders, heldSentence} from './claims.js'
import type {GroupCommit, Recorded, Seen, Settled} from './durability.js'
import type {GatewayIdentity} from './gateway.js'
import {type Selection, pages, paramsOf, recordOf} from './queries/lists.js'
import {type EventEntry, type OrderEntry, type RefundEntry} from './records.js'
import type {Queries} from './queries/index.js'

/** An order as a command names it: by the merchant's number, the gateway's or the channel's. */
type OrderNumbers = {mch_order_no?: string; gw_order_no?: string; channel_order_no?: string}

/** A record of a list or a story: `unattributed` when it is from before gw recorded gateways (never used for money). */
type Shown<T> = T & {unattributed?: true}

/** What a gateway's history needs of the store it belongs to. */
interface HistoryCore {
  /** The queries, after what waits is committed (`states`: the states seen too). */
  queries(states: boolean): Queries
  db(): LocalDatabase
  /** The id of this gateway's records; undefined when it has none yet, unless `create` (inside a write). */
  id(create: boolean): number | undefined
  /** The id of the appid's records from before gw recorded gateways, when there are some. */
  legacy(): number | undefined
  /** This is the one gateway this machine knows for its appid (its history, its profiles). */
  sole(): boolean
  commits: GroupCommit
  file: string
}

export class GatewayHistory {
  constructor(
    readonly gateway: GatewayIdentity,
    private readonly core: HistoryCore,
  ) {}

  /** The database. */
  get file(): string {
    return this.core.file
  }

  get appid(): string {
    return this.gateway.appid
  }

  /**
   * Whether this is the one gateway this machine knows for its appid (in its history and its
   * profiles): then what an earlier gw recorded of the appid without its gateway is this one's.
   */
  isSoleGateway(): boolean {
    return this.core.sole()
  }

  recordOrder(entry: Omit<OrderEntry, 'type' | 'appid' | 'gateway' | 'at' | 'state_at'>): void {
    const at = new Date().toISOString()
    const order: OrderEntry = {type: 'order', appid: this.appid, ...entry, at, state_at: entry.state && at}
    this.core.commits.add({entry: order, gateway: this.gateway, credit: true})
  }

  /**
   * What a query, notification or close showed of an order: recorded, when it was made here and
   * the state goes further than the one kept (a late notification never undoes a refund), with
   * the records waiting and before any question about orders.
   */
  noteOrderState(mchOrderNo: string, state: string, facts: Seen['facts'] = {by: 'query'}): void {
    this.core.commits.see({gateway: this.gateway, mchOrderNo, state, at: new Date().toISOString(), facts})
  }

  /** A line of an order's story (see EventEntry), recorded with the records waiting. */
  noteEvent(mchOrderNo: string, kind: EventEntry['kind'], detail: Record<string, unknown>): void {
    const at = new Date().toISOString()
    const entry: EventEntry = {type: 'event', appid: this.appid, mch_order_no: mchOrderNo, kind, at, detail}
    this.core.commits.add({entry, gateway: this.gateway, credit: true})
  }

  /**
   * A refund about to be sent, committed with a synced write before this returns; throws
   * (LocalStateError) when the database cannot take it: then the refund is not sent.
   */
  recordIntent(entry: Omit<RefundEntry, 'type' | 'appid' | 'gateway' | 'at' | 'status'>): void {
    const refund: RefundEntry = {type: 'refund', appid: this.appid, ...entry, status: 'intent', at: now()}
    this.core.commits.now({entry: refund, gateway: this.gateway, credit: true}, {intent: true})
  }

  /**
   * What became of a refund (it was sent, or looked up). Never throws: a record the database
   * cannot take goes to history.jsonl, and the answer says where it went. `sync`: committed (or
   * appended) before this returns, else with the records waiting. `at`: when it was made, when
   * earlier than now (a journal's intent). `credit`: the run recording it made it.
   */
  recordOutcome(
    entry: Omit<RefundEntry, 'type' | 'appid' | 'gateway' | 'at'> & {at?: string},
    options: {sync?: boolean; credit?: boolean} = {},
  ): Recorded {
    const refund: RefundEntry = {type: 'refund', appid: this.appid, ...entry, at: entry.at ?? now()}
    const pending = {entry: refund, gateway: this.gateway, credit: options.credit ?? true}
    if (!options.sync) {
      this.core.commits.add(pending)
      return {where: 'history'}
    }
    return this.core.commits.now(pending, {intent: false})
  }

  /**
   * Commits every record waiting, waiting a bounded time for another program; what the database
   * cannot take goes to history.jsonl. Says what went there or was lost (this process's, in all),
   * and the end of the command then says only what came after. Never throws.
   */
  settle(): Settled {
    return this.core.commits.settle()
  }

  /**
   * `work`'s questions (only questions: nothing recorded meanwhile) in one read of the database,
   * after what waits is committed: one snapshot, and SQLite's read lock taken once for all of them
   * rather than once each (a bulk plan asks two for every row).
   */
  reading<T>(work: () => T): T {
    this.core.queries(true)
    return this.core.db().read(work)
  }

  /** The order made here on this gateway, by its merchant, gateway or channel number (one a query or notification showed). */
  findOrder(ref: OrderNumbers): OrderEntry | undefined {
    const q = this.core.queries(true)
    const id = this.core.id(false)
    if (id === undefined) return undefined
    const row = ref.mch_order_no
      ? q.orders.byMerchantNumber.get(id, ref.mch_order_no)
      : ref.gw_order_no
        ? q.orders.byGatewayNumber.get(id, ref.gw_order_no)
        : ref.channel_order_no
          ? q.orders.byChannelNumber.get(id, ref.channel_order_no)
          : undefined
    return recordOf<OrderEntry>('order', row as Record<string, unknown> | undefined, this.appid)
  }

  /** The refunds of an order made here on this gateway, each as its latest record says, oldest first. */
  refundsOf(mchOrderNo: string): RefundEntry[] {
    return this.#refundsOf(this.core.id(false), mchOrderNo)
  }

  /** Whether this gateway's history holds any refund of an order. */
  hasRefunds(mchOrderNo: string): boolean {
    const q = this.core.queries(false)
    const id = this.core.id(false)
    return id !== undefined && q.refunds.anyOf.get(id, mchOrderNo) !== undefined
  }

  /** The latest record of a refund number on this gateway, on any order. */
  findRefund(mchRefundNo: string): RefundEntry | undefined {
    const q = this.core.queries(false)
    const id = this.core.id(false)
    if (id === undefined) return undefined
    return recordOf<RefundEntry>('refund', q.refunds.byNumber.get(id, mchRefundNo) as never, this.appid)
  }

  /** The latest record of the refund the gateway numbered `gwRefundNo` (its answer showed it), on any order. */
  findRefundByGatewayNumber(gwRefundNo: string): RefundEntry | undefined {
    const q = this.core.queries(false)
    const id = this.core.id(false)
    if (id === undefined) return undefined
    return recordOf<RefundEntry>('refund', q.refunds.byGatewayNumber.get(id, gwRefundNo) as never, this.appid)
  }

  /**
   * What this machine knows of one order, named by any of its numbers: its record,
   * the refunds made here, the lines of its story (events), oldest first; and what records of
   * earlier versions of unknown gateway hold of that order number, marked.
   */
  story(ref: OrderNumbers): {order?: Shown<OrderEntry>; refunds: Shown<RefundEntry>[]; events: Shown<EventEntry>[]} {
    const q = this.core.queries(true)
    const legacy = this.core.legacy()
    const order = this.findOrder(ref) ?? this.#legacyOrder(legacy, ref)
    const mchOrderNo = order?.mch_order_no ?? ref.mch_order_no
    if (!mchOrderNo) return {order, refunds: [], events: []}
    const eventsOf = (id: number | undefined) =>
      id === undefined
        ? []
        : (q.events.ofOrder.all(id, mchOrderNo) as Record<string, unknown>[]).map((row) => {
            const {detail, ...event} = recordOf<Omit<EventEntry, 'detail'> & {detail: string}>(
              'event',
              row,
              this.appid,
            )!
            return {...event, detail: JSON.parse(detail) as Record<string, unknown>}
          })
    const refunds = [...this.refundsOf(mchOrderNo), ...marked(this.#refundsOf(legacy, mchOrderNo))]
    const events = [...eventsOf(this.core.id(false)), ...marked(eventsOf(legacy))].sort(
      (a, b) => Date.parse(a.at) - Date.parse(b.at),
    )
    return {order, refunds, events}
  }

  /** The orders made here for this gateway, newest first, as their latest record says, read a page at a time. */
  *orders(selection: Selection = {}): IterableIterator<Shown<OrderEntry>> {
    const q = this.core.queries(true)
    yield* this.#listed((id) => pages(q.orders.page, paramsOf(id, selection)), 'order')
  }

  /** The refunds made here for this gateway, newest first (by their latest record), read a page at a time. */
  *refunds(selection: Selection = {}): IterableIterator<Shown<RefundEntry>> {
    const q = this.core.queries(false)
    yield* this.#listed((id) => pages(q.refunds.page, paramsOf(id, selection)), 'refund')
  }

  /** How many orders or refunds a list selects, counted by the index without reading them. */
  count(what: 'orders' | 'refunds', selection: Selection = {}): number {
    const q = this.core.queries(what === 'orders')
    const statement = what === 'orders' ? q.orders.count : q.refunds.count
    const counted = (id: number | undefined) => {
      if (id === undefined) return 0
      const {last_row: _lastRow, ...params} = paramsOf(id, selection)
      return (statement.get(params) as {n: number}).n
    }
    return counted(this.core.id(false)) + counted(this.core.legacy())
  }

  /**
   * One refund of an order at a time, across processes: a claim row taken in a transaction, held
   * by this process's lock. A claim whose process has ended is taken over; a live one is refused
   * (exit 2) naming its process.
   */
  claimOrder(mchOrderNo: string): OrderClaim {
    const {claim, refused} = this.claimOrders([mchOrderNo])
    const held = refused.get(mchOrderNo)
    if (held)
      throw new GwError('usage', `${heldSentence(mchOrderNo, held)} Nothing was sent.`, {
        advice: 'Wait for that run to end, then run this again: gw will see what it refunded.',
        details: {database: this.file, holder: held},
      })
    return claim
  }

  /**
   * The claims of many orders (a bulk run's), in one transaction: `refused` names the orders
   * another live process holds, with their holder; the others are this process's until released.
   */
  claimOrders(mchOrderNos: Iterable<string>): {claim: OrderClaim; refused: Map<string, ClaimHolder>} {
    return claimOrders(this.core, mchOrderNos)
  }

  #refundsOf(id: number | undefined, mchOrderNo: string): RefundEntry[] {
    const q = this.core.queries(false)
    if (id === undefined) return []
    const rows = q.refunds.ofOrder.all(id, mchOrderNo) as Record<string, unknown>[]
    return rows.map((row) => recordOf<RefundEntry>('refund', row, this.appid)!)
  }

  #legacyOrder(legacy: number | undefined, ref: OrderNumbers): Shown<OrderEntry> | undefined {
    if (legacy === undefined || !ref.mch_order_no) return undefined
    const row = this.core.queries(false).orders.byMerchantNumber.get(legacy, ref.mch_order_no)
    const order = recordOf<OrderEntry>('order', row as Record<string, unknown> | undefined, this.appid)
    return order && {...order, unattributed: true}
  }

  /**
   * A list of this gateway's records and, marked, those of earlier versions of unknown gateway:
   * two lists newest first, merged as they are read (neither held whole).
   */
  *#listed<T>(list: (id: number) => Generator<Record<string, unknown>>, type: string): Generator<Shown<T>> {
    const id = this.core.id(false)
    const legacy = this.core.legacy()
    const ours = id === undefined ? undefined : list(id)
    const theirs = legacy === undefined ? undefined : list(legacy)
    let a = ours?.next()
    let b = theirs?.next()
    for (;;) {
      const left = a && !a.done ? a.value : undefined
      const right = b && !b.done ? b.value : undefined
      if (!left && !right) return
      if (left && (!right || (left.at_ms as number) >= (right.at_ms as number))) {
        yield recordOf<T>(type, left, this.appid)!
        a = ours!.next()
      } else {
        yield {...recordOf<T>(type, right, this.appid)!, unattributed: true}
        b = theirs!.next()
      }
    }
  }
}

const now = () => new Date().toISOString()

const marked = <T>(records: T[]): Shown<T>[] => records.map((record) => ({...record, unattributed: true}))
