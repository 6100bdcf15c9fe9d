/**
 * Whose records: the id of a gateway's records in the history, under whatever spelling of its
 * address it is named (gateway.ts: spellingOf). Every spelling met is a row of its own naming the
 * gateway it is (`same_as`); spellings an earlier gw kept apart are made one, their records moved
 * under the oldest by the merge's rules. Records of earlier versions, which know only their appid,
 * are adopted by the one gateway this machine knows for that appid, and never before.
 */
import type {SQLInputValue} from 'node:sqlite'

import type {LocalDatabase} from '../io/database.js'
import {LocalStateError} from '../io/database-errors.js'
import {type GatewayIdentity, describeGateway, spellingOf} from './gateway.js'
import type {Queries} from './queries/index.js'

/** A row of the gateways: a gateway, or a spelling of the one it names (`same_as`). */
type Spelling = GatewayIdentity & {id: number; same_as: number | null}

/** The ids of gateways' records in one open history, as far as this process has met them. */
export class GatewayIds {
  readonly #ids = new Map<string, number>()
  readonly #db: LocalDatabase
  readonly #q: Queries
  /** Told once of a gateway met under a new spelling: the gateway it is. */
  readonly #note?: (message: string) => void

  constructor(db: LocalDatabase, queries: Queries, note?: (message: string) => void) {
    this.#db = db
    this.#q = queries
    this.#note = note
  }

  /**
   * The id of a gateway's records (the gateway's, under whatever spelling it is named); undefined
   * when it has none yet, unless `create` (inside a write): then a new spelling of a known gateway
   * is kept as one, and a new gateway made.
   */
  idOf(gateway: GatewayIdentity, create: boolean): number | undefined {
    const key = `${gateway.appid}\n${gateway.base_url}\n${gateway.key}`
    const known = this.#ids.get(key)
    if (known !== undefined) return known
    const q = this.#q.gateways
    const row = q.find.get(gateway.appid, gateway.base_url, gateway.key) as unknown as Spelling | undefined
    let id = row && (row.same_as ?? row.id)
    if (id === undefined && gateway.base_url) id = this.#spellingsOf(gateway)[0]?.gateway
    if (!row && create) {
      q.add.run(gateway.appid, gateway.base_url, gateway.key, new Date().toISOString(), id ?? null)
      id ??= (q.find.get(gateway.appid, gateway.base_url, gateway.key) as unknown as Spelling).id
    }
    if (id !== undefined) this.#ids.set(key, id)
    return id
  }

  /** The gateway's other spellings in the history (gateway.ts: spellingOf), each with the gateway it names, oldest first. */
  #spellingsOf(gateway: GatewayIdentity): (Spelling & {gateway: number; by: 'key' | 'address'})[] {
    const rows = this.#q.gateways.ofAppid.all(gateway.appid) as unknown as Spelling[]
    return rows.flatMap((row) => {
      const by = spellingOf(gateway, row)
      return by === 'key' || by === 'address' ? [{...row, gateway: row.same_as ?? row.id, by}] : []
    })
  }

  /**
   * A gateway met under a spelling the history does not hold yet, or whose spellings an earlier gw
   * kept apart: made one, its records moved under the oldest (by the merge's rules: a record never
   * says less than one kept), and the new spelling said once. The database held: false, to ask again.
   */
  spell(gateway: GatewayIdentity): boolean {
    if (!gateway.base_url) return true
    // Asked inside a write (its id taken there): made one at the next question.
    if (this.#db.inTransaction) return false
    const q = this.#q
    const spellings = this.#spellingsOf(gateway)
    const own = q.gateways.find.get(gateway.appid, gateway.base_url, gateway.key) as unknown as Spelling | undefined
    const apart = [...new Set([...(own ? [own.same_as ?? own.id] : []), ...spellings.map((s) => s.gateway)])].sort(
      (a, b) => a - b,
    )
    if (!spellings.length || (own && apart.length === 1)) return true
    const [into, ...others] = apart as [number, ...number[]]
    try {
      this.#db.write(() => {
        for (const other of others) {
          this.#moveRecords(other, into)
          this.#db.prepare('UPDATE gateways SET same_as = ? WHERE id = ? OR same_as = ?').run(into, other, other)
        }
        if (!own) q.gateways.add.run(gateway.appid, gateway.base_url, gateway.key, new Date().toISOString(), into)
        this.#ids.clear()
      })
    } catch (error) {
      if (!(error instanceof LocalStateError)) throw error
      return false
    }
    const first = spellings.find((s) => s.gateway === into) ?? spellings[0]!
    const by = first.by === 'key' ? 'its gateway key' : 'its address (its key was rotated)'
    if (!own)
      this.#note?.(
        `${describeGateway(gateway)} is the gateway this machine knew as ${describeGateway(first)}: the same appid and ${by}. Its records, claims and checks are one.`,
      )
    return true
  }

  /** Moves a gateway's records to another's (inside a write), by the merge's rules, and its claims. */
  #moveRecords(from: number, to: number): void {
    const q = this.#q
    const move = (table: string, save: (row: Record<string, unknown>) => void) => {
      const rows = this.#db.prepare(`SELECT * FROM ${table} WHERE gateway = ? ORDER BY rowid`).all(from)
      for (const row of rows as Record<string, unknown>[]) save({...row, gateway: to})
      this.#db.prepare(`DELETE FROM ${table} WHERE gateway = ?`).run(from)
    }
    move('orders', (row) => q.orders.save.run(row as Record<string, SQLInputValue>))
    move('refunds', (row) => q.refunds.save.run({...row, credit: 0} as Record<string, SQLInputValue>))
    move('events', (row) => q.events.save.run(row as Record<string, SQLInputValue>))
    this.#db.prepare('UPDATE OR IGNORE refund_claims SET gateway = ? WHERE gateway = ?').run(to, from)
    this.#db.prepare('DELETE FROM refund_claims WHERE gateway = ?').run(from)
  }

  /** The records of an appid from before gw recorded gateways: their id, when there are any. */
  legacyOf(appid: string): number | undefined {
    return this.idOf({appid, base_url: '', key: ''}, false)
  }

  /**
   * Records of earlier versions of the gateway's appid become its own when it is the one gateway
   * this machine knows for that appid: no other in the store, none in the profiles. Moved with
   * the merge's rules (a record never says less than one kept), and noted for `gw history`.
   * The database held: they wait, never used meanwhile, and false says to ask again.
   */
  adopt(gateway: GatewayIdentity, known: readonly GatewayIdentity[]): boolean {
    const q = this.#q
    const ofAppid = q.gateways.ofAppid.all(gateway.appid) as unknown as ({id: number} & GatewayIdentity)[]
    const legacy = ofAppid.find((g) => g.base_url === '')
    if (!legacy || this.others(gateway, known).length) return true
    const why = `the one gateway this machine knew for appid ${gateway.appid} (${describeGateway(gateway)})`
    try {
      this.#db.write(() => {
        const to = this.idOf(gateway, true)!
        const held = q.gateways.held.get({gateway: legacy.id}) as {orders: number; refunds: number; events: number}
        this.#moveRecords(legacy.id, to)
        q.gateways.noteAdoption.run(to, held.orders, held.refunds, held.events, why, new Date().toISOString())
        this.#db.prepare('DELETE FROM gateways WHERE id = ?').run(legacy.id)
        this.#ids.delete(`${gateway.appid}\n\n`)
      })
      return true
    } catch (error) {
      if (!(error instanceof LocalStateError)) throw error
      return false
    }
  }

  /** The other gateways of the appid this machine knows: in its history, or named by its profiles. */
  others(gateway: GatewayIdentity, known: readonly GatewayIdentity[]): GatewayIdentity[] {
    const stored = this.#q.gateways.ofAppid.all(gateway.appid) as unknown as GatewayIdentity[]
    // Another spelling of this gateway is no other gateway.
    const id = this.idOf(gateway, false)
    const spelling = (g: GatewayIdentity) =>
      spellingOf(gateway, g) !== undefined || (id !== undefined && this.idOf(g, false) === id)
    return [...stored.filter((g) => g.base_url !== ''), ...known.filter((g) => g.appid === gateway.appid)].filter(
      (g) => !spelling(g),
    )
  }
}
