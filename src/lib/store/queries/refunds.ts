/** The questions about refunds, each with its SQL, for the records of one gateway. */
import type {LocalDatabase, Statement} from '../../io/database.js'
import {pageSql} from './lists.js'

/**
 * How far a refund's status is proven, for merges: an intent, then unknown, then processing, then
 * an end the gateway showed (failed, absent, not confirmable), then refunded (a status missing,
 * of an earlier version, is a refund made). A record never replaces one more proven.
 */
const rank = (status: string) =>
  `CASE WHEN ${status} IS NULL OR ${status} = 'refunded' THEN 4 WHEN ${status} = 'intent' THEN 0
        WHEN ${status} = 'unknown' THEN 1 WHEN ${status} = 'processing' THEN 2 ELSE 3 END`
const AS_PROVEN = `${rank('excluded.status')} >= ${rank('status')}`
/**
 * A refund is credited (its source and time) to the run that made it: a record moves them only
 * when it proves more than the one kept and comes from a run whose own request made the refund,
 * not one that found it already made (two copies of a file run at once).
 */
const CREDITED = `@credit AND ${rank('excluded.status')} > ${rank('status')}`

/** A refund of an order of the payer's (the orders of this gateway made here, whose payer gw learned). */
const PAYER_OF_REFUND = `EXISTS (SELECT 1 FROM orders o
  WHERE o.gateway = refunds.gateway AND o.mch_order_no = refunds.mch_order_no AND o.openid = @payer)`

/**
 * The refunds of a list: one gateway's, made in [since, upto], of one channel or all, in one
 * state or all (a refund recorded without a status, by an earlier version, is one made: refunded),
 * of an amount or all: the refund's own, or its order's total (the customer paid 150.50).
 */
const REFUNDS_LISTED = `gateway = @gateway AND at_ms >= @since AND at_ms <= @upto
  AND (@channel IS NULL OR channel = @channel) AND (@state IS NULL OR coalesce(status, 'refunded') = @state)
  AND (@amounts IS NULL OR fee_type || ':' || refund_fee IN (SELECT value FROM json_each(@amounts))
       OR fee_type || ':' || total_fee IN (SELECT value FROM json_each(@amounts)))
  AND (@payer IS NULL OR ${PAYER_OF_REFUND})`

export class RefundQueries {
  /**
   * A later record of a refund keeps what it does not say again, and never says less than the one
   * kept. The order's total, when the record does not carry it, is the order's made here.
   */
  readonly save: Statement
  readonly ofOrder: Statement
  readonly byNumber: Statement
  readonly byGatewayNumber: Statement
  readonly anyOf: Statement
  readonly page: Statement
  readonly count: Statement

  constructor(db: LocalDatabase) {
    this.save = db.prepare(
      `INSERT INTO refunds (gateway, mch_order_no, gw_order_no, channel, mch_refund_no, refund_fee, fee_type, status,
                            gw_refund_no, source, at, at_ms, total_fee)
       VALUES (@gateway, @mch_order_no, @gw_order_no, @channel, @mch_refund_no, @refund_fee, @fee_type, @status,
               @gw_refund_no, @source, @at, @at_ms, coalesce(@total_fee,
                 (SELECT total_fee FROM orders WHERE gateway = @gateway AND mch_order_no = @mch_order_no)))
       ON CONFLICT (gateway, mch_order_no, mch_refund_no) DO UPDATE SET
         gw_order_no = coalesce(gw_order_no, excluded.gw_order_no), channel = coalesce(channel, excluded.channel),
         fee_type = coalesce(fee_type, excluded.fee_type), total_fee = coalesce(total_fee, excluded.total_fee),
         status = CASE WHEN ${AS_PROVEN} THEN coalesce(excluded.status, 'refunded') ELSE status END,
         gw_refund_no = CASE WHEN ${AS_PROVEN} THEN coalesce(excluded.gw_refund_no, gw_refund_no)
                             ELSE coalesce(gw_refund_no, excluded.gw_refund_no) END,
         source = CASE WHEN ${CREDITED} THEN coalesce(excluded.source, source) ELSE coalesce(source, excluded.source) END,
         at = CASE WHEN ${CREDITED} THEN excluded.at ELSE at END,
         at_ms = CASE WHEN ${CREDITED} THEN excluded.at_ms ELSE at_ms END`,
    )
    this.ofOrder = db.prepare('SELECT * FROM refunds WHERE gateway = ? AND mch_order_no = ? ORDER BY rowid')
    this.byNumber = db.prepare(
      'SELECT * FROM refunds WHERE gateway = ? AND mch_refund_no = ? ORDER BY at_ms DESC, rowid DESC LIMIT 1',
    )
    this.byGatewayNumber = db.prepare(
      'SELECT * FROM refunds WHERE gateway = ? AND gw_refund_no = ? ORDER BY at_ms DESC, rowid DESC LIMIT 1',
    )
    this.anyOf = db.prepare('SELECT 1 AS found FROM refunds WHERE gateway = ? AND mch_order_no = ? LIMIT 1')
    this.page = db.prepare(pageSql('refunds', REFUNDS_LISTED))
    this.count = db.prepare(`SELECT count(*) AS n FROM refunds WHERE ${REFUNDS_LISTED}`)
  }
}
