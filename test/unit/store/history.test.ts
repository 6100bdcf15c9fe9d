import {spawn} from 'node:child_process'
import {existsSync, lstatSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {hostname} from 'node:os'
import {join} from 'node:path'
import {DatabaseSync} from 'node:sqlite'

import {afterAll, describe, expect, it, vi} from 'vitest'

import {GwError} from '../../../src/lib/errors.js'
import {LocalStore, type StorePorts} from '../../../src/lib/store/store.js'
import {removeDir, tempDir} from '../../helpers/shared.js'

/** The gateway of appid A1 (the one this machine knows, so records of earlier versions are its), and another merchant's. */
const A1 = {appid: 'A1', base_url: 'https://gw.example/Gateway', key: 'aa:bb'}
const B2 = {appid: 'B2', base_url: 'https://gw.example/Gateway', key: 'aa:bb'}
const historyOf = (dir: string, ports: StorePorts = {}, gateway = A1) => new LocalStore(dir, ports).for(gateway)

const dirs: string[] = []
afterAll(() => dirs.forEach(removeDir))
function folder(): string {
  const dir = tempDir('gw-history-unit-')
  dirs.push(dir)
  return dir
}

const order = (mch: string, at: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    type: 'order',
    appid: 'A1',
    mch_order_no: mch,
    channel: 'wechat',
    total_fee: 1000,
    fee_type: 'THB',
    at,
    ...extra,
  })
const refund = (mch: string, no: string, at: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({type: 'refund', appid: 'A1', mch_order_no: mch, mch_refund_no: no, refund_fee: 100, at, ...extra})

describe('the history database', () => {
  it('imports an earlier history once: last record wins, an order keeps when it was made, torn lines named', () => {
    const dir = folder()
    const warnings: string[] = []
    writeFileSync(
      join(dir, 'history.jsonl'),
      [
        order('O1', '2026-01-01T00:00:00Z'),
        // Of an earlier version: no state, and a refund without a status (a refund made).
        order('O2', '2026-01-02T00:00:00+07:00'),
        refund('O1', 'R1', '2026-01-03T00:00:00Z'),
        '{"type":"refund","appid":"A1","mch_ord',
        order('O1', '2026-01-05T00:00:00Z', {state: 'SUCCESS', state_at: '2026-01-05T00:00:00Z', gw_order_no: 'G1'}),
        refund('O1', 'R2', '2026-01-06T00:00:00Z', {status: 'intent'}),
        refund('O1', 'R2', '2026-01-06T00:00:01Z', {status: 'refunded', gw_refund_no: 'GR2'}),
        'null',
      ].join('\n'),
    )
    const history = historyOf(dir, {warn: (m) => warnings.push(m)})
    const o1 = history.findOrder({gw_order_no: 'G1'})
    // Its refunds were made (R1 of an earlier version, R2 refunded): the order is REFUND, whatever a later line said.
    expect(o1).toMatchObject({mch_order_no: 'O1', at: '2026-01-01T00:00:00Z', state: 'REFUND'})
    expect(history.findOrder({mch_order_no: 'O2'})).not.toHaveProperty('state')
    expect(history.refundsOf('O1').map((r) => [r.mch_refund_no, r.status, r.gw_refund_no])).toEqual([
      ['R1', undefined, undefined],
      ['R2', 'refunded', 'GR2'],
    ])
    expect(warnings).toEqual([expect.stringMatching(/lines 4, 8 are not a record of an order or refund/)])
    expect(readdirSync(dir).sort()).toEqual(expect.arrayContaining(['history.db', 'history.jsonl.imported']))
    expect(existsSync(join(dir, 'history.jsonl'))).toBe(false)
    expect(statSync(join(dir, 'history.db')).mode & 0o777).toBe(0o600)

    const again = new LocalStore(dir, {warn: (m) => warnings.push(m)})
    expect(again.describe()).toMatchObject({
      gateways: [{appid: 'A1', base_url: A1.base_url, orders: 2, refunds: 2}],
      adopted: [{appid: 'A1', orders: 2, refunds: 2}],
      imported: {lines: 8, skipped_lines: [4, 8]},
    })
    expect(warnings).toHaveLength(1)
  })

  it('lists newest first within a time range and channel, reading only what matches', () => {
    const dir = folder()
    const history = historyOf(dir)
    vi.useFakeTimers({toFake: ['Date']})
    try {
      for (const [minute, mch, channel] of [
        [1, 'O1', 'wechat'],
        [2, 'O2', 'alipay'],
        [3, 'O3', 'wechat'],
      ] as const) {
        vi.setSystemTime(new Date(2026, 0, 1, 0, minute))
        history.recordOrder({mch_order_no: mch, channel, total_fee: 1, fee_type: 'THB'})
      }
    } finally {
      vi.useRealTimers()
    }
    const other = historyOf(dir, {}, B2)
    other.recordOrder({mch_order_no: 'X', channel: 'wechat', total_fee: 1, fee_type: 'THB'})
    expect([...other.orders()].map((o) => o.mch_order_no)).toEqual(['X'])
    expect([...history.orders({channel: 'wechat'})].map((o) => o.mch_order_no)).toEqual(['O3', 'O1'])
    expect([...history.orders({since: new Date(Date.now() + 60_000)})]).toEqual([])
    history.recordIntent({mch_order_no: 'O1', mch_refund_no: 'R1', refund_fee: 1})
    history.recordOutcome({mch_order_no: 'O1', mch_refund_no: 'R1', refund_fee: 1, status: 'refunded'})
    expect([...history.refunds()]).toEqual([expect.objectContaining({mch_refund_no: 'R1', status: 'refunded'})])
    expect(history.findRefund('R1')?.status).toBe('refunded')
    expect(other.findRefund('R1')).toBeUndefined()
  })

  it('moves an order to REFUND once a refund of it is proven: in lists by state, never by one not proven', () => {
    const dir = folder()
    const history = historyOf(dir)
    for (const mch of ['PROVEN', 'UNKNOWN', 'BULK'])
      history.recordOrder({mch_order_no: mch, channel: 'wechat', total_fee: 1000, fee_type: 'THB', state: 'NOTPAY'})
    for (const mch of ['PROVEN', 'UNKNOWN', 'BULK']) history.noteOrderState(mch, 'SUCCESS')
    history.recordIntent({mch_order_no: 'PROVEN', mch_refund_no: 'R1', refund_fee: 100})
    history.recordOutcome(
      {mch_order_no: 'PROVEN', mch_refund_no: 'R1', refund_fee: 100, status: 'refunded'},
      {sync: true},
    )
    history.recordOutcome({mch_order_no: 'UNKNOWN', mch_refund_no: 'R2', refund_fee: 100, status: 'unknown'})
    // A bulk run's outcomes, committed with the others of a tenth of a second.
    history.recordOutcome({mch_order_no: 'BULK', mch_refund_no: 'R3', refund_fee: 100, status: 'refunded'})
    const states = () => Object.fromEntries([...history.orders()].map((o) => [o.mch_order_no, o.state]))
    expect(states()).toEqual({PROVEN: 'REFUND', UNKNOWN: 'SUCCESS', BULK: 'REFUND'})
    expect([...history.orders({state: 'REFUND'})].map((o) => o.mch_order_no).sort()).toEqual(['BULK', 'PROVEN'])
    expect([...history.orders({state: 'SUCCESS'})].map((o) => o.mch_order_no)).toEqual(['UNKNOWN'])
    // A query that answers late with the payment never undoes the refund.
    history.noteOrderState('PROVEN', 'SUCCESS')
    expect(history.findOrder({mch_order_no: 'PROVEN'})?.state).toBe('REFUND')
  })

  it('keeps when a state was last confirmed, never moved back by an answer committed after a later one', () => {
    const dir = folder()
    const history = historyOf(dir)
    vi.useFakeTimers({toFake: ['Date']})
    try {
      vi.setSystemTime(new Date('2026-03-01T10:00:00.000Z'))
      history.recordOrder({mch_order_no: 'M1', channel: 'wechat', total_fee: 1000, fee_type: 'THB', state: 'NOTPAY'})
      history.noteOrderState('M1', 'SUCCESS')
      expect(history.findOrder({mch_order_no: 'M1'})?.state_at).toBe('2026-03-01T10:00:00.000Z')
      vi.setSystemTime(new Date('2026-03-01T11:30:00.000Z'))
      history.noteOrderState('M1', 'SUCCESS')
      expect(history.findOrder({mch_order_no: 'M1'})).toMatchObject({
        state: 'SUCCESS',
        state_at: '2026-03-01T11:30:00.000Z',
      })
      // Another gw's answer of the same state, learned earlier and committed now, leaves the later time.
      const other = historyOf(dir)
      other.findOrder({mch_order_no: 'M1'})
      vi.setSystemTime(new Date('2026-03-01T11:00:00.000Z'))
      other.noteOrderState('M1', 'SUCCESS')
      expect(other.findOrder({mch_order_no: 'M1'})?.state_at).toBe('2026-03-01T11:30:00.000Z')
      // A refund proven at noon confirms REFUND then.
      vi.setSystemTime(new Date('2026-03-01T12:00:00.000Z'))
      history.recordOutcome(
        {mch_order_no: 'M1', mch_refund_no: 'R1', refund_fee: 100, status: 'refunded'},
        {sync: true},
      )
      expect(history.findOrder({mch_order_no: 'M1'})).toMatchObject({
        state: 'REFUND',
        state_at: '2026-03-01T12:00:00.000Z',
      })
    } finally {
      vi.useRealTimers()
    }
  })

  it('lists past a page of rows, ties in time in the order recorded, and takes writes while a list is read', () => {
    const dir = folder()
    // 2,500 orders, five to each millisecond: pages of 1,000 end inside a run of ties.
    const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + Math.floor(i / 5)).toISOString()
    writeFileSync(join(dir, 'history.jsonl'), Array.from({length: 2500}, (_, i) => order(`P${i}`, at(i))).join('\n'))
    const history = historyOf(dir)
    const expected = Array.from({length: 2500}, (_, i) => i)
      .sort((a, b) => Math.floor(b / 5) - Math.floor(a / 5) || a - b)
      .map((i) => `P${i}`)
    const listed: string[] = []
    for (const o of history.orders()) {
      listed.push(o.mch_order_no)
      // What --refresh does for each order listed: its new state noted in the history.
      history.noteOrderState(o.mch_order_no, 'SUCCESS')
    }
    expect(listed).toEqual(expected)
    expect([...history.orders()].every((o) => o.state === 'SUCCESS')).toBe(true)
    const range = {since: new Date(at(2000)), until: new Date(at(2100))}
    expect([...history.orders(range)]).toHaveLength(100)
    // Counted with the same selection as listed: time, state, channel.
    expect(history.count('orders', range)).toBe(100)
    expect(history.count('orders', {state: 'SUCCESS'})).toBe(2500)
    expect(history.count('orders', {state: 'NOTPAY'})).toBe(0)
    expect(history.count('orders', {channel: 'alipay'})).toBe(0)
    // A refund of an earlier version, without a status, is one made: refunded.
    history.recordOutcome({mch_order_no: 'P1', mch_refund_no: 'R1', refund_fee: 1})
    history.recordOutcome({mch_order_no: 'P2', mch_refund_no: 'R2', refund_fee: 1, status: 'unknown'})
    expect(history.count('refunds', {state: 'refunded'})).toBe(1)
    expect([...history.refunds({state: 'refunded'})].map((r) => r.mch_refund_no)).toEqual(['R1'])
    expect(history.count('refunds')).toBe(2)
  })
  it("commits a bulk run's records together: a tenth of a second's, 512, or before a question; a single refund's at once", async () => {
    const dir = folder()
    const history = historyOf(dir)
    history.findOrder({mch_order_no: 'none'})
    const committed = () => new DatabaseSync(join(dir, 'history.db'), {readOnly: true})
    const refundsSeen = () => {
      const db = committed()
      try {
        return (db.prepare('SELECT count(*) AS n FROM refunds').get() as {n: number}).n
      } finally {
        db.close()
      }
    }
    const bulk = (i: number) => ({
      appid: 'A1',
      mch_order_no: `B${i}`,
      mch_refund_no: `B${i}-R`,
      refund_fee: 1,
      source: 'f.csv',
    })
    vi.useFakeTimers({toFake: ['setTimeout', 'clearTimeout']})
    try {
      for (let i = 0; i < 5; i++) history.recordOutcome({...bulk(i), status: 'refunded'})
      await new Promise((resolve) => setImmediate(resolve))
      for (let i = 5; i < 10; i++) history.recordOutcome({...bulk(i), status: 'refunded'})
      await new Promise((resolve) => setImmediate(resolve))
      expect(refundsSeen()).toBe(0)
      vi.advanceTimersByTime(100)
      expect(refundsSeen()).toBe(10)
    } finally {
      vi.useRealTimers()
    }
    for (let i = 10; i < 522; i++) history.recordOutcome({...bulk(i), status: 'refunded'})
    expect(refundsSeen()).toBe(522)
    history.recordOutcome({...bulk(522), status: 'refunded'})
    expect(history.findRefund('B522-R')?.status).toBe('refunded')
    expect(refundsSeen()).toBe(523)
    history.recordIntent(bulk(523))
    expect(refundsSeen()).toBe(524)
  })

  it('records the states queries showed with the records waiting: of orders made here whose state changed', async () => {
    const dir = folder()
    writeFileSync(join(dir, 'history.jsonl'), [order('M1', '2026-01-01T00:00:00.000Z', {state: 'NOTPAY'})].join('\n'))
    const history = historyOf(dir)
    const other = historyOf(dir, {}, B2)
    history.findOrder({mch_order_no: 'M1'})
    const stateOnDisk = () => {
      const db = new DatabaseSync(join(dir, 'history.db'), {readOnly: true})
      try {
        return db.prepare("SELECT state, state_at FROM orders WHERE mch_order_no = 'M1'").get() as {
          state: string
          state_at: string | null
        }
      } finally {
        db.close()
      }
    }
    vi.useFakeTimers({toFake: ['setTimeout', 'clearTimeout']})
    try {
      history.noteOrderState('M1', 'USERPAYING')
      history.noteOrderState('M1', 'SUCCESS')
      // Orders not made here (another appid's, or unknown) are not recorded.
      history.noteOrderState('ELSEWHERE', 'SUCCESS')
      other.noteOrderState('M1', 'SUCCESS')
      expect(stateOnDisk().state).toBe('NOTPAY')
      // A question about refunds does not wait for them; one about the order does.
      expect(history.hasRefunds('M1')).toBe(false)
      expect(stateOnDisk().state).toBe('NOTPAY')
      vi.advanceTimersByTime(100)
      expect(stateOnDisk()).toMatchObject({state: 'SUCCESS', state_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/)})
      history.noteOrderState('M1', 'REFUND')
      expect(history.findOrder({mch_order_no: 'M1'})).toMatchObject({
        state: 'REFUND',
        at: '2026-01-01T00:00:00.000Z',
      })
    } finally {
      vi.useRealTimers()
    }
    expect(history.count('orders')).toBe(1)
    expect(other.count('orders')).toBe(0)
  })

  it("gives an earlier version's records to their gateway at a question after the database was held at the first", () => {
    const dir = folder()
    writeFileSync(join(dir, 'history.jsonl'), order('E1', '2026-01-01T00:00:00.000Z', {state: 'SUCCESS'}))
    const store = new LocalStore(dir)
    // Opened (and the earlier file imported) by another question, before any of A1's.
    expect(store.describe().gateways).toEqual([expect.objectContaining({appid: 'A1', unattributed: true})])
    const history = store.for(A1)
    const holder = new DatabaseSync(join(dir, 'history.db'))
    holder.exec('BEGIN IMMEDIATE')
    try {
      // Held: nothing is given, and the record waits, never used as A1's meanwhile.
      expect(history.findOrder({mch_order_no: 'E1'})).toBeUndefined()
    } finally {
      holder.exec('ROLLBACK')
      holder.close()
    }
    expect(history.findOrder({mch_order_no: 'E1'})).toMatchObject({mch_order_no: 'E1', state: 'SUCCESS'})
    expect(store.describe().adopted).toEqual([expect.objectContaining({appid: 'A1', orders: 1})])
    store.close()
  })

  it('never records a state a query showed over one another gw learned later', () => {
    const dir = folder()
    writeFileSync(join(dir, 'history.jsonl'), order('M1', '2026-01-01T00:00:00.000Z', {state: 'SUCCESS'}))
    const [one, other] = [historyOf(dir), historyOf(dir)]
    one.findOrder({mch_order_no: 'M1'})
    vi.useFakeTimers({toFake: ['setTimeout', 'clearTimeout', 'Date']})
    try {
      vi.setSystemTime(new Date('2026-02-01T10:00:00.000Z'))
      // This one's query answered first (SUCCESS, as known) and waits to be committed...
      one.noteOrderState('M1', 'SUCCESS')
      // ...while another gw learns later that the order was refunded, and commits it.
      vi.setSystemTime(new Date('2026-02-01T10:00:01.000Z'))
      other.noteOrderState('M1', 'REFUND')
      expect(other.findOrder({mch_order_no: 'M1'})?.state).toBe('REFUND')
      vi.setSystemTime(new Date('2026-02-01T10:00:02.000Z'))
      expect(one.findOrder({mch_order_no: 'M1'})).toMatchObject({
        state: 'REFUND',
        state_at: '2026-02-01T10:00:01.000Z',
      })
    } finally {
      vi.useRealTimers()
    }
  })

  it('gives one claim of an order at a time, held by the system: never by a pid on file', async () => {
    const dir = folder()
    const history = historyOf(dir)
    const claim = history.claimOrder('O1')
    const other = historyOf(dir)
    // The holder is this very process: still running, so refused.
    expect(() => other.claimOrder('O1')).toThrow(/Order O1 is being refunded by process \d+/)
    claim.release()
    other.claimOrder('O1').release()

    /** A claim row as another gw wrote it: pid 1 of its own namespace, its run's lock `run` (none: an earlier gw). */
    const plant = (run: string | null) => {
      const db = new DatabaseSync(join(dir, 'history.db'))
      db.prepare(
        "INSERT OR REPLACE INTO refund_claims VALUES ((SELECT id FROM gateways WHERE appid = 'A1'), 'O1', 1, ?, 'then', ?)",
      ).run(hostname(), run)
      db.close()
    }
    // Live in another pid namespace or container: its run's lock is held, whatever its pid says here.
    const lock = join(dir, 'claims', 'elsewhere.lock')
    const script = `const db = new (require('node:sqlite').DatabaseSync)(${JSON.stringify(lock)}); db.exec('PRAGMA journal_mode = MEMORY'); db.exec('BEGIN EXCLUSIVE'); process.stdout.write('held'); setInterval(() => {}, 1000)`
    const live = spawn(process.execPath, ['--no-warnings', '-e', script], {stdio: ['ignore', 'pipe', 'inherit']})
    await new Promise((resolve) => live.stdout.once('data', resolve))
    plant('elsewhere')
    expect(() => history.claimOrder('O1')).toThrow(
      `Order O1 is being refunded by process 1 on ${hostname()} (since then).`,
    )
    // Killed: the system let go of its lock, and its claim is taken over.
    await new Promise((resolve) => (live.once('exit', resolve), live.kill('SIGKILL')))
    const taken = history.claimOrder('O1')
    expect(() => other.claimOrder('O1')).toThrow(new RegExp(`by process ${process.pid} `))
    taken.release()
    expect(existsSync(lock)).toBe(false)
    // Of an earlier gw, naming this very pid (a restart that gave the pid back): taken over, never held for good.
    const db = new DatabaseSync(join(dir, 'history.db'))
    db.prepare("UPDATE refund_claims SET pid = ? WHERE mch_order_no = 'O1'").run(process.pid)
    db.close()
    plant(null)
    history.claimOrder('O1').release()
    expect(readdirSync(join(dir, 'claims'))).toEqual([])
  })

  it('says what to do with a file that is not a database, and never reads it as an empty history', () => {
    const dir = folder()
    writeFileSync(
      join(dir, 'history.db'),
      'this is not SQLite, it is long enough to be read as a header page '.repeat(20),
    )
    const history = historyOf(dir)
    let error: unknown
    try {
      history.findOrder({mch_order_no: 'O1'})
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(GwError)
    expect((error as GwError).exitCode).toBe(2)
    expect((error as GwError).message).toMatch(/history\.db is not a readable gw database/)
    expect((error as GwError).advice).toMatch(/Move it aside .*sqlite3 .*\.recover/)
  })
})

/** The numbers an order or a refund is asked by: a question by one is answered from that number's index. */
const NUMBERS = ['mch_order_no', 'gw_order_no', 'channel_order_no', 'mch_refund_no', 'gw_refund_no']
const askedBy = (sql: string) => NUMBERS.find((n) => new RegExp(`\\b${n} = [?@]`).test(sql))

describe("the history's questions", () => {
  it("asks by a number from that number's index, never walking every record in time to it", () => {
    const dir = folder()
    const asked: string[] = []
    const prepare = DatabaseSync.prototype.prepare
    const spy = vi.spyOn(DatabaseSync.prototype, 'prepare').mockImplementation(function (this: DatabaseSync, sql) {
      asked.push(sql)
      return prepare.call(this, sql)
    })
    try {
      historyOf(dir).findOrder({mch_order_no: 'O1'})
    } finally {
      spy.mockRestore()
    }
    const db = new DatabaseSync(join(dir, 'history.db'), {readOnly: true})
    const byNumber = asked.filter((sql) => /^\s*SELECT/i.test(sql) && askedBy(sql))
    // Support's questions of one order or refund: by each of its numbers, its refunds, its story.
    expect(byNumber.length).toBeGreaterThanOrEqual(7)
    for (const sql of byNumber) {
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as {detail: string}[]).map((row) => row.detail)
      expect({sql, plan}).toEqual({sql, plan: expect.arrayContaining([expect.stringContaining(`${askedBy(sql)}=?`)])})
    }
    db.close()
  })
})

describe('the note of who writes the history', () => {
  it('replaces a link put in its place, never writing through it', () => {
    const dir = folder()
    const target = join(dir, 'someone-elses.txt')
    writeFileSync(target, 'kept\n')
    symlinkSync(target, join(dir, 'history.db.writer'))
    const history = historyOf(dir)
    history.recordIntent({mch_order_no: 'O1', mch_refund_no: 'R1', refund_fee: 1})
    expect(history.refundsOf('O1')).toEqual([expect.objectContaining({mch_refund_no: 'R1', status: 'intent'})])
    expect(readFileSync(target, 'utf8')).toBe('kept\n')
    expect(lstatSync(join(dir, 'history.db.writer')).isFile()).toBe(true)
  })
})

describe('one gateway, however its address is spelled', () => {
  const at = (base_url: string, key = A1.key) => ({appid: 'A1', base_url, key})

  it('is one history under its key at another address and its address under another key; said once; test and live apart', () => {
    const dir = folder()
    const notes: string[] = []
    const ports = {note: (message: string) => notes.push(message)}
    historyOf(dir, ports).recordIntent({mch_order_no: 'O1', mch_refund_no: 'R1', refund_fee: 1})
    const respelled = historyOf(dir, ports, at('https://203.0.113.9/Gateway'))
    expect(respelled.refundsOf('O1')).toEqual([expect.objectContaining({mch_refund_no: 'R1'})])
    expect(notes).toEqual([
      'appid A1 at https://203.0.113.9/Gateway (gateway key aa:bb…) is the gateway this machine knew as appid A1 at https://gw.example/Gateway (gateway key aa:bb…): the same appid and its gateway key. Its records, claims and checks are one.',
    ])
    // Its claims are one: a claim under one spelling is held under the other.
    const claim = respelled.claimOrder('O1')
    expect(() => historyOf(dir).claimOrder('O1')).toThrow(/Order O1 is being refunded by process/)
    claim.release()
    const rotated = historyOf(dir, ports, at('https://gw.example/Gateway', 'cc:dd'))
    expect(rotated.refundsOf('O1')).toHaveLength(1)
    expect(notes[1]).toContain('the same appid and its address (its key was rotated)')
    // Met again: nothing said.
    historyOf(dir, ports, at('https://203.0.113.9/Gateway')).refundsOf('O1')
    expect(notes).toHaveLength(2)
    // Another address and another key: another gateway (the live one of a test one).
    expect(historyOf(dir, ports, at('https://live.example/Gateway', 'ee:ff')).refundsOf('O1')).toEqual([])
  })

  it("an earlier gw's history of two spellings kept apart: made one as it is met, every record kept once", () => {
    const dir = folder()
    const first = historyOf(dir)
    first.recordIntent({mch_order_no: 'O1', mch_refund_no: 'R1', refund_fee: 1})
    first.recordOutcome({mch_order_no: 'O1', mch_refund_no: 'R1', refund_fee: 1, status: 'refunded'}, {sync: true})
    new LocalStore(dir).close()
    // As the earlier gw kept it: a gateway of its own for localhost, with the same refund seen there and another.
    const db = new DatabaseSync(join(dir, 'history.db'))
    db.exec(
      "INSERT INTO gateways (appid, base_url, key, since) VALUES ('A1', 'http://localhost:1/Gateway', 'aa:bb', 'then')",
    )
    const insert = db.prepare(
      "INSERT INTO refunds (gateway, mch_order_no, mch_refund_no, refund_fee, status, at, at_ms) VALUES ((SELECT max(id) FROM gateways), 'O1', ?, 1, ?, '2026-01-01T00:00:00.000Z', 0)",
    )
    insert.run('R1', 'intent')
    insert.run('R2', 'refunded')
    db.close()
    const met = historyOf(dir, {}, at('http://localhost:1/Gateway'))
    expect(met.refundsOf('O1').map((r) => [r.mch_refund_no, r.status])).toEqual([
      ['R1', 'refunded'],
      ['R2', 'refunded'],
    ])
    expect(historyOf(dir).refundsOf('O1')).toHaveLength(2)
  })
})
