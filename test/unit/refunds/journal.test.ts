import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {Journal} from '../../../src/lib/refunds/bulk/journal.js'
import {tempDir} from '../../helpers/shared.js'

const test = {appid: 'mch1', base_url: 'https://test.gw.example/Gateway', key: '01:02'}
const identity = {csv_file: 'refunds.csv', csv_sha256: 'abc', appid: 'mch1', gateway: test}
const line = (record: object) => `${JSON.stringify(record)}\n`
const header = {type: 'header', version: 1, ...identity, created_at: 'then'}
const intent = (n: number) => ({
  type: 'intent',
  line: n,
  mch_refund_no: `R${n}`,
  mch_order_no: 'A',
  refund_fee: 1,
  fee_type: 'THB',
  at: 't',
})
const outcome = (n: number) => ({type: 'outcome', line: n, mch_refund_no: `R${n}`, status: 'refunded', at: 't'})

describe('the journal', () => {
  it('reads nothing and resumes nothing when there is none', () => {
    const read = Journal.read(join(tempDir(), 'none.jsonl'), identity)
    expect(read).toEqual({rows: new Map(), resumed: false, torn: false})
  })

  it('gives each line its intent (and where the journal holds it) and outcome, and ignores a last line cut short', () => {
    const path = join(tempDir(), 'j.jsonl')
    writeFileSync(path, line(header) + line(intent(2)) + line(outcome(2)) + line(intent(3)) + '{"type":"outc')
    const {rows, resumed, torn} = Journal.read(path, identity)
    expect([resumed, torn]).toEqual([true, true])
    expect(rows.get(2)).toEqual({intent: intent(2), outcome: outcome(2), intentLine: 2})
    expect(rows.get(3)).toEqual({intent: intent(3), intentLine: 4})
  })

  it('refuses a journal of another file or another appid', () => {
    const path = join(tempDir(), 'j.jsonl')
    writeFileSync(path, line(header))
    expect(() => Journal.read(path, {...identity, csv_sha256: 'other'})).toThrow(
      /belongs to another version of the file/,
    )
    expect(() => Journal.read(path, {...identity, appid: 'mch2'})).toThrow(/was written for appid mch1, not mch2/)
  })

  it("refuses another gateway's journal of the same appid (a test run, then the live one), and one that does not name its gateway", () => {
    const path = join(tempDir(), 'j.jsonl')
    writeFileSync(path, line(header))
    const live = {...test, base_url: 'https://gw.example/Gateway', key: '0a:0b'}
    let refusal: Error | undefined
    try {
      Journal.read(path, {...identity, gateway: live})
    } catch (error) {
      refusal = error as Error
    }
    expect(refusal?.message).toBe(
      `The journal ${path} was written against appid mch1 at https://test.gw.example/Gateway (gateway key 01:02…); this run sends to appid mch1 at https://gw.example/Gateway (gateway key 0a:0b…). Nothing was sent: a journal of one gateway says nothing of another (a test run of the file, then the live one).`,
    )
    expect((refusal as {advice?: string}).advice).toMatch(
      /^Run the file on that gateway's profile to resume it, or give this run a journal of its own: add --journal \S+/,
    )
    const {gateway: _gateway, ...earlier} = header
    writeFileSync(path, line(earlier))
    expect(() => Journal.read(path, identity)).toThrow(
      /was written by an earlier gw, which did not record the gateway it sent to, and this machine knows more than one gateway of appid mch1/,
    )
    // Where this is the one gateway this machine knows for the appid, it is that journal's: resumed.
    expect(Journal.read(path, {...identity, soleGateway: true}).resumed).toBe(true)
  })

  it('writes its header once, then appends; records queued together land in order', async () => {
    const path = join(tempDir(), 'j.jsonl')
    const journal = await Journal.open(path, identity, false)
    await Promise.all([
      journal.append(intent(2) as never),
      journal.append(outcome(2) as never),
      journal.append(intent(3) as never),
    ])
    await journal.close()
    const again = await Journal.open(path, identity, true)
    await again.append(outcome(3) as never)
    await again.close()
    const types = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).type)
    expect(types).toEqual(['header', 'intent', 'outcome', 'intent', 'outcome'])
  })

  // Written on the main thread while syncs are fast, in the thread pool once one was slow:
  // the same file either way, and a write the disk refuses is refused to the caller.
  for (const [mode, inlineSyncMs, inline] of [
    ['on the main thread', Infinity, true],
    ['in the thread pool', 0, false],
    ['in the thread pool once syncs were slow', Number.MIN_VALUE, false],
  ] as const) {
    it(`writes every record whole and in order ${mode}`, async () => {
      const path = join(tempDir(), 'j.jsonl')
      const journal = await Journal.open(path, identity, false, inlineSyncMs)
      await Promise.all([journal.append(intent(2) as never), journal.append(outcome(2) as never)])
      await Promise.all([journal.append(intent(3) as never), journal.append(outcome(3) as never)])
      expect(journal.inline).toBe(inline)
      await journal.close()
      expect(readFileSync(path, 'utf8')).toBe(
        line({...header, created_at: JSON.parse(readFileSync(path, 'utf8').split('\n')[0]!).created_at}) +
          [intent(2), outcome(2), intent(3), outcome(3)].map(line).join(''),
      )
    })

    it(`refuses the records of a group the disk refuses ${mode}`, async () => {
      const journal = await Journal.open('/dev/full', identity, true, inlineSyncMs)
      await expect(journal.append(intent(2) as never)).rejects.toThrow(/ENOSPC/)
      await journal.close()
    })
  }
})
