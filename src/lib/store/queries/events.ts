/** The lines of an order's story, for the records of one gateway. */
import type {LocalDatabase, Statement} from '../../io/database.js'

export class EventQueries {
  /** An event is kept once: the same event merged again (a restored history.jsonl) changes nothing. */
  readonly save: Statement
  readonly ofOrder: Statement

  constructor(db: LocalDatabase) {
    this.save = db.prepare(
      `INSERT OR IGNORE INTO events (gateway, mch_order_no, kind, at, at_ms, detail)
       VALUES (@gateway, @mch_order_no, @kind, @at, @at_ms, @detail)`,
    )
    this.ofOrder = db.prepare('SELECT * FROM events WHERE gateway = ? AND mch_order_no = ? ORDER BY at_ms, rowid')
  }
}
