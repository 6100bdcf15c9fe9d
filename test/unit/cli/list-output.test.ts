import {PassThrough} from 'node:stream'

import {describe, expect, it} from 'vitest'

import {JsonListWriter, RefreshTally} from '../../../src/lib/cli/list-output.js'

/** What a writer put on its stream, once it ended. */
async function written(key: string, items: unknown[], more?: Record<string, unknown>): Promise<string> {
  const out = new PassThrough()
  const chunks: Buffer[] = []
  out.on('data', (chunk: Buffer) => chunks.push(chunk))
  const writer = new JsonListWriter(key, out)
  for (const item of items) await writer.add(item)
  await writer.end(more)
  return Buffer.concat(chunks).toString('utf8')
}

const order = (i: number) => ({
  made_at: '2026-03-02T10:00:00+07:00',
  mch_order_no: `INV-${i}`,
  channel: 'wechat',
  total_fee: 100 + i,
  nested: {a: [1, {b: 'x\ny'}], empty: [], none: {}},
})

describe('JsonListWriter', () => {
  it('writes the document exactly as JSON.stringify(document, null, 2) does, for none, one and many items', async () => {
    for (const count of [0, 1, 3, 2500]) {
      const items = Array.from({length: count}, (_, i) => order(i))
      expect(await written('orders', items)).toBe(`${JSON.stringify({orders: items}, null, 2)}\n`)
    }
  })

  it('ends a document already begun with an error as its last member: still one JSON document', async () => {
    const error = {kind: 'transport', exit_code: 3, message: 'the database went away'}
    const text = await written('refunds', [order(1)], {error})
    expect(JSON.parse(text)).toEqual({refunds: [order(1)], error})
    expect(text).toBe(`${JSON.stringify({refunds: [order(1)], error}, null, 2)}\n`)
  })

  it('says it has begun only once part of the document reached its stream, and waits for a reader that is behind', async () => {
    const out = new PassThrough()
    const writer = new JsonListWriter('orders', out)
    await writer.add(order(1))
    expect(writer.started).toBe(false)
    // Nobody reads `out` yet: the first chunk is written, and the writer waits for the stream to drain.
    let added = 0
    const adding = (async () => {
      for (; added < 1000; added++) await writer.add(order(added))
    })()
    await new Promise((resolve) => setImmediate(resolve))
    expect(writer.started).toBe(true)
    expect(added).toBeLessThan(1000)
    out.resume()
    await adding
    expect(added).toBe(1000)
  })
})

describe('RefreshTally', () => {
  it('counts the listed, those not refreshed (with the first reason) and those kept as known (with each reason once)', () => {
    const tally = new RefreshTally()
    tally.add({})
    tally.add({refresh_failed: 'timeout.'})
    tally.add({refresh_failed: 'refused.'})
    tally.add({refresh_skipped: 'alipay has no refund query'})
    tally.add({refresh_skipped: 'alipay has no refund query'})
    expect(tally).toMatchObject({listed: 5, failed: 2, firstFailure: 'timeout.', skipped: 2})
    expect([...tally.skippedWhy]).toEqual(['alipay has no refund query'])
  })
})
