/** Who is refunding an order now: one refund of an order at a time, across processes (see GatewayHistory.claimOrders). */
import type {LocalDatabase, Statement} from '../../io/database.js'

export class ClaimQueries {
  readonly of: Statement
  readonly take: Statement
  readonly release: Statement

  constructor(db: LocalDatabase) {
    this.of = db.prepare('SELECT pid, host, since, run FROM refund_claims WHERE gateway = ? AND mch_order_no = ?')
    this.take = db.prepare(
      'INSERT OR REPLACE INTO refund_claims (gateway, mch_order_no, pid, host, since, run) VALUES (?, ?, ?, ?, ?, ?)',
    )
    this.release = db.prepare('DELETE FROM refund_claims WHERE gateway = ? AND mch_order_no = ? AND run = ?')
  }
}
