/**
 * The gateways records belong to, the earlier histories merged in, and what the history holds per
 * gateway (`gw history`). A gateway of base URL and key '' is an appid's records from before gw
 * recorded gateways; one whose `same_as` names another is a spelling of it, holding no records.
 */
import type {LocalDatabase, Statement} from '../../io/database.js'

export class GatewayQueries {
  readonly find: Statement
  readonly add: Statement
  readonly ofAppid: Statement
  readonly held: Statement
  readonly noteAdoption: Statement
  readonly adoptions: Statement
  readonly importOf: Statement
  readonly lastImport: Statement
  readonly noteImport: Statement
  readonly summaries: Statement

  constructor(db: LocalDatabase) {
    this.find = db.prepare('SELECT * FROM gateways WHERE appid = ? AND base_url = ? AND key = ?')
    this.add = db.prepare('INSERT INTO gateways (appid, base_url, key, since, same_as) VALUES (?, ?, ?, ?, ?)')
    this.ofAppid = db.prepare('SELECT * FROM gateways WHERE appid = ? ORDER BY id')
    this.held = db.prepare(
      `SELECT (SELECT count(*) FROM orders WHERE gateway = @gateway) AS orders,
              (SELECT count(*) FROM refunds WHERE gateway = @gateway) AS refunds,
              (SELECT count(*) FROM events WHERE gateway = @gateway) AS events`,
    )
    this.noteAdoption = db.prepare(
      'INSERT INTO adoptions (gateway, orders, refunds, events, why, at) VALUES (?, ?, ?, ?, ?, ?)',
    )
    this.adoptions = db.prepare(
      `SELECT g.appid, g.base_url, a.orders, a.refunds, a.events, a.why, a.at
         FROM adoptions a JOIN gateways g ON g.id = a.gateway ORDER BY a.rowid`,
    )
    this.importOf = db.prepare('SELECT * FROM imports WHERE file = ? ORDER BY rowid DESC LIMIT 1')
    this.lastImport = db.prepare('SELECT * FROM imports ORDER BY rowid DESC LIMIT 1')
    this.noteImport = db.prepare('INSERT INTO imports (file, lines, skipped, at) VALUES (?, ?, ?, ?)')
    this.summaries = db.prepare(
      `SELECT g.id, g.appid, g.base_url, g.key, sum(orders) AS orders, sum(refunds) AS refunds,
              min(oldest) AS oldest, max(newest) AS newest FROM (
         SELECT gateway, count(*) AS orders, 0 AS refunds, min(at_ms) AS oldest, max(at_ms) AS newest
           FROM orders GROUP BY gateway
         UNION ALL
         SELECT gateway, 0, count(*), min(at_ms), max(at_ms) FROM refunds GROUP BY gateway) AS held
       JOIN gateways g ON g.id = held.gateway
       GROUP BY g.id ORDER BY g.appid, g.base_url = '', g.id`,
    )
  }
}
