/** The questions about orders, each with its SQL, for the records of one gateway. */
import type {LocalDatabase, Statement} from '../../io/database.js'
import {STATE_RANK} from '../records.js'
import {pageSql} from './lists.js'

/** The SQL rank of an order's state (see STATE_RANK): what it proves, never when gw learned it. */
const rankOf = (state: string) =>
  `CASE ${state} ${Object.entries(STATE_RANK)
    .map(([name, rank]) => `WHEN '${name}' THEN ${rank}`)
    .join(' ')} ELSE 0 END`

/** A state shown moves the one kept when it goes further, or is the same learned again (see movesState). */
const MOVES = `excluded.state IS NOT NULL AND (state IS NULL OR excluded.state = state
  OR ${rankOf('excluded.state')} > ${rankOf('state')})`

/**
 * When the state kept was last confirmed: the time it was shown, unless it is the same state shown
 * earlier than the one kept (an answer committed after a later one), which leaves the later time.
 */
const confirmedAt = (shownState: string, shownAt: string) =>
  `CASE WHEN ${shownState} = state AND julianday(state_at) >= julianday(${shownAt}) THEN state_at ELSE ${shownAt} END`

/** The orders of a list: one gateway's, made in [since, upto], of one channel or all, in one state or all. */
const ORDERS_LISTED = `gateway = @gateway AND at_ms >= @since AND at_ms <= @upto
  AND (@channel IS NULL OR channel = @channel) AND (@state IS NULL OR state = @state)
  AND (@amounts IS NULL OR fee_type || ':' || total_fee IN (SELECT value FROM json_each(@amounts)))
  AND (@payer IS NULL OR openid = @payer)`

export class OrderQueries {
  /** A later record of an order keeps what it was made with (its channel, amount, time); its state moves by what it proves. */
  readonly save: Statement
  /** A refund of the order proven made (the gateway showed it succeeded): the order is REFUND, as the gateway says it. */
  readonly refunded: Statement
  readonly byMerchantNumber: Statement
  readonly byGatewayNumber: Statement
  readonly byChannelNumber: Statement
  /** The states kept of many orders, in one read (their numbers as a JSON array). */
  readonly statesOf: Statement
  readonly page: Statement
  readonly count: Statement

  constructor(db: LocalDatabase) {
    this.save = db.prepare(
      `INSERT INTO orders (gateway, mch_order_no, gw_order_no, channel, total_fee, fee_type, at, at_ms, state, state_at,
                           openid, channel_order_no)
       VALUES (@gateway, @mch_order_no, @gw_order_no, @channel, @total_fee, @fee_type, @at, @at_ms, @state, @state_at,
               @openid, @channel_order_no)
       ON CONFLICT (gateway, mch_order_no) DO UPDATE SET
         gw_order_no = coalesce(gw_order_no, excluded.gw_order_no), openid = coalesce(excluded.openid, openid),
         channel_order_no = coalesce(channel_order_no, excluded.channel_order_no),
         state = CASE WHEN ${MOVES} THEN excluded.state ELSE state END,
         state_at = CASE WHEN ${MOVES} THEN ${confirmedAt('excluded.state', 'excluded.state_at')} ELSE state_at END`,
    )
    this.refunded = db.prepare(
      `UPDATE orders SET state = 'REFUND', state_at = ${confirmedAt("'REFUND'", '@at')}
         WHERE gateway = @gateway AND mch_order_no = @mch_order_no`,
    )
    this.byMerchantNumber = db.prepare('SELECT * FROM orders WHERE gateway = ? AND mch_order_no = ?')
    this.byGatewayNumber = db.prepare(
      'SELECT * FROM orders WHERE gateway = ? AND gw_order_no = ? ORDER BY rowid DESC LIMIT 1',
    )
    this.byChannelNumber = db.prepare(
      'SELECT * FROM orders WHERE gateway = ? AND channel_order_no = ? ORDER BY rowid DESC LIMIT 1',
    )
    this.statesOf = db.prepare(
      `SELECT mch_order_no, state, state_at, openid, channel_order_no FROM orders
         WHERE gateway = ? AND mch_order_no IN (SELECT value FROM json_each(?))`,
    )
    this.page = db.prepare(pageSql('orders', ORDERS_LISTED))
    this.count = db.prepare(`SELECT count(*) AS n FROM orders WHERE ${ORDERS_LISTED}`)
  }
}
