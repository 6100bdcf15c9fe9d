/**
 * The loop where money moves (RefundService.send), against ports of memory (refunds/ports.ts): a
 * gateway that answers as each row's script says, and records kept in an array. Each row: what
 * the gateway answers to the refund and to the lookups of its number, what the send ends as, how
 * many times the refund was sent, what this machine's records keep of it, and the exit the
 * command ends with (a single refund's; a bulk run's too where the row says). In milliseconds:
 * the command tier shows what only a process, a file or the words show, through the sandbox.
 */
import {describe, expect, it} from 'vitest'

import type {Answer} from '../../../src/lib/gateway/answers.js'
import {EXIT_CODES, GwError} from '../../../src/lib/errors.js'
import type {GatewayProfile} from '../../../src/lib/gateway/client.js'
import type {RefundGateway, RefundRecords} from '../../../src/lib/refunds/ports.js'
import {
  type PlannedRefund,
  type RefundResult,
  type RowStatus,
  outcomeOfRefund,
  rowOfResult,
  runOutcome,
} from '../../../src/lib/refunds/refund.js'
import {RefundService} from '../../../src/lib/refunds/service.js'
import type {RefundEntry} from '../../../src/lib/store/records.js'

type RefundAnswer = Answer<'order_refund'>
type LookupAnswer = Answer<'refund_query'>

const success: RefundAnswer = {
  status: 'success',
  data: {gw_refund_no: 'G1', refund_time: '2026-11-21T09:00:00+07:00'} as never,
  attempts: 1,
}
const refused = (code: string): RefundAnswer => ({
  status: 'refused',
  code,
  message: code,
  explanation: `${code}.`,
  attempts: 1,
})
const uncertain = (reason: string, code?: string): RefundAnswer =>
  ({status: 'uncertain', reason, code, message: reason, attempts: 4}) as RefundAnswer
/** A refund query's answer listing the refund `RF1` of 10.00 THB in `state`. */
const listed = (state: string, fee = 1000): LookupAnswer => ({
  status: 'success',
  data: {
    refund_orders: [{mch_refund_no: 'RF1', mch_refund_fee: fee, refund_state: state, gw_refund_no: 'G1'}],
  } as never,
  attempts: 1,
})
const notThere: LookupAnswer = {
  status: 'refused',
  code: 'GW_INVALID_ORDER_NO',
  message: 'no',
  explanation: 'No.',
  attempts: 1,
}
/** A failure of the client: no request arrived. */
const unreachable = new GwError('transport', 'connection refused')

/** A gateway that answers the refund and its lookups in turn, and shows the order in `orderState`. */
class ScriptedGateway implements RefundGateway {
  readonly profile = {name: 'test', appid: 'mch1', named: false} as GatewayProfile
  sent = 0
  looked = 0
  constructor(
    private readonly refunds: (RefundAnswer | GwError)[],
    private readonly lookups: LookupAnswer[] = [],
    private readonly orderState = 'SUCCESS',
  ) {}
  check(): void {}
  async refund(): Promise<RefundAnswer> {
    const next = this.refunds[this.sent++] ?? this.refunds.at(-1)!
    if (next instanceof GwError) throw next
    return next
  }
  async lookup(): Promise<LookupAnswer> {
    return this.lookups[this.looked++] ?? this.lookups.at(-1)!
  }
  async order() {
    return {record: {result: this.orderState}, channel: 'alipay', channel_source: 'given'} as never
  }
}

/** Records kept in memory: what a run of this machine recorded, and `seen` before it. */
class MemoryRecords implements Partial<RefundRecords> {
  readonly kept: Partial<RefundEntry>[] = []
  constructor(private readonly seen: RefundEntry[] = []) {}
  outcome(entry: Partial<RefundEntry>) {
    this.kept.push(entry)
    return {where: 'history' as const}
  }
  byNumber(number: string) {
    return this.seen.find((r) => r.mch_refund_no === number)
  }
  ofOrder(order: string) {
    return this.seen.filter((r) => r.mch_order_no === order)
  }
}

const planned = (channel: string, facts: Partial<PlannedRefund> = {}): PlannedRefund => ({
  ref: {mch_order_no: 'A'},
  mch_order_no: 'A',
  channel,
  total_fee: 10_000,
  fee_type: 'THB',
  refund_fee: 1000,
  mch_refund_no: 'RF1',
  ...facts,
})
const seenRefunded: RefundEntry = {
  type: 'refund',
  appid: 'mch1',
  mch_order_no: 'A',
  mch_refund_no: 'RF1',
  refund_fee: 1000,
  status: 'refunded',
  gw_refund_no: 'G0',
  at: '2026-11-21T01:00:00.000Z',
}
/** An earlier refund of the same order, RF0, refunded here: it put the order in REFUND. */
const earlierRefunded: RefundEntry = {...seenRefunded, mch_refund_no: 'RF0', gw_refund_no: 'G00'}

interface Row {
  refunds: (RefundAnswer | GwError)[]
  lookups?: LookupAnswer[]
  channel?: string
  orderState?: string
  seen?: RefundEntry[]
  facts?: Partial<PlannedRefund>
  ends: Partial<RefundResult>
  sends: number
  /** The exit of `gw refund create ORDER` ending so (outcomeOfRefund). */
  exit: number
  /** As the one row of a bulk run: its status in the report, and the run's exit (runOutcome). */
  bulk?: {status: RowStatus; exit: number}
}

/** One refund sent through the loop, the gateway and records as the row scripts them. */
async function send(row: Omit<Row, 'ends' | 'sends' | 'exit' | 'bulk'>) {
  const gateway = new ScriptedGateway(row.refunds, row.lookups, row.orderState)
  const records = new MemoryRecords(row.seen)
  const service = new RefundService(gateway, records as unknown as RefundRecords)
  const result = await service.send(planned(row.channel ?? 'wechat', row.facts), 'refunds.csv')
  return {result, gateway, records}
}

describe('the send loop, row by row', () => {
  it.each<[string, Row]>([
    ['answered refunded', {refunds: [success], ends: {status: 'refunded', resolved_by: 'answer'}, sends: 1, exit: 0}],
    [
      // Was the command case "a refund whose answers are all dropped is looked up, not resent".
      'every answer lost, then the lookup shows it made: refunded, looked up, never sent twice; exit 0',
      {
        refunds: [uncertain('no_answer')],
        lookups: [listed('SUCCESS')],
        ends: {status: 'refunded', resolved_by: 'refund_query'},
        sends: 1,
        exit: 0,
      },
    ],
    [
      'no answer, the number absent: sent again under it, then refunded',
      {refunds: [uncertain('no_answer'), success], lookups: [notThere], ends: {status: 'refunded'}, sends: 2, exit: 0},
    ],
    [
      'no answer three times, the number absent each time: unknown, the next run looks it up',
      {
        refunds: [uncertain('no_answer')],
        lookups: [notThere],
        ends: {status: 'unknown', resolved_by: 'refund_query'},
        sends: 3,
        exit: 5,
      },
    ],
    [
      'refused, the number absent: failed',
      {refunds: [refused('GW_X')], lookups: [notThere], ends: {status: 'failed', err_code: 'GW_X'}, sends: 1, exit: 1},
    ],
    [
      // Was the command case "a signed refusal about another refund is not taken for this one".
      'refused, yet the number shows made (a signed refusal of another request): looked up first, refunded; exit 0',
      {
        refunds: [refused('GW_X')],
        lookups: [listed('SUCCESS')],
        ends: {status: 'refunded', resolved_by: 'refund_query'},
        sends: 1,
        exit: 0,
      },
    ],
    [
      'a duplicate, the number held for another amount: failed, not this refund',
      {
        refunds: [refused('GW_DUPLICATED_REFUND_ORDERNO')],
        lookups: [listed('SUCCESS', 500)],
        ends: {status: 'failed', resolved_by: 'refund_query'},
        sends: 1,
        exit: 1,
      },
    ],
    [
      'a bad signature, the number unreadable: unknown, never sent again',
      {
        refunds: [uncertain('bad_signature')],
        lookups: [{status: 'uncertain', reason: 'no_answer', message: 'x', attempts: 4}],
        ends: {status: 'unknown', unverified: true},
        sends: 1,
        exit: 4,
      },
    ],
    [
      'alipay, delayed (TRADE_STATE_ERROR): processing, to confirm on the platform',
      {
        refunds: [uncertain('ambiguous_code', 'TRADE_STATE_ERROR')],
        channel: 'alipay',
        ends: {status: 'processing'},
        sends: 1,
        exit: 5,
      },
    ],
    [
      // Was the command case "a refund the gateway holds as PROCESSING on alipay is never reported refunded because an earlier refund put the order in REFUND".
      "alipay, delayed after an earlier refund put the order in REFUND: processing, never refunded on the order's word (single and bulk)",
      {
        refunds: [uncertain('ambiguous_code', 'TRADE_STATE_ERROR')],
        channel: 'alipay',
        orderState: 'REFUND',
        seen: [earlierRefunded],
        ends: {
          status: 'processing',
          err_code: 'TRADE_STATE_ERROR',
          explanation: expect.stringContaining('merchant platform') as string,
        },
        sends: 1,
        exit: 5,
        bulk: {status: 'processing', exit: 5},
      },
    ],
    [
      'alipay, a duplicate of a number given: failed, nothing made by this run',
      {
        refunds: [refused('GW_DUPLICATED_REFUND_ORDERNO')],
        channel: 'alipay',
        facts: {number_given: true},
        ends: {status: 'failed', err_code: 'GW_DUPLICATED_REFUND_ORDERNO'},
        sends: 1,
        exit: 1,
      },
    ],
    [
      "alipay, gw's own number held, the order still paid: not confirmable",
      {
        refunds: [refused('GW_DUPLICATED_REFUND_ORDERNO')],
        channel: 'alipay',
        ends: {status: 'not_confirmable'},
        sends: 1,
        exit: 5,
        bulk: {status: 'not_confirmable', exit: 6},
      },
    ],
    [
      'alipay, held, the order in REFUND and this refund seen refunded here: refunded, from the history',
      {
        refunds: [refused('GW_DUPLICATED_REFUND_ORDERNO')],
        channel: 'alipay',
        orderState: 'REFUND',
        seen: [seenRefunded],
        ends: {status: 'refunded', resolved_by: 'history', gw_refund_no: 'G0'},
        sends: 1,
        exit: 0,
      },
    ],
    [
      'alipay, no answer three times: sent again under its number, then unknown',
      {
        refunds: [uncertain('no_answer')],
        channel: 'alipay',
        ends: {status: 'unknown', resolved_by: 'resend'},
        sends: 3,
        exit: 5,
      },
    ],
    [
      'no answer, then no connection: unknown (the first may have arrived), never "nothing was sent"',
      {
        refunds: [uncertain('no_answer'), unreachable],
        lookups: [notThere],
        ends: {status: 'unknown'},
        sends: 2,
        exit: 5,
      },
    ],
  ])('%s', async (_, row) => {
    const {result, gateway, records} = await send(row)
    expect(result).toMatchObject(row.ends)
    expect(gateway.sent).toBe(row.sends)
    expect(EXIT_CODES[outcomeOfRefund(result)]).toBe(row.exit)
    if (row.bulk) {
      const asRow = rowOfResult(result, 'elsewhere')
      expect(asRow.status).toBe(row.bulk.status)
      expect(EXIT_CODES[runOutcome([asRow], {stopped: false})]).toBe(row.bulk.exit)
    }
    // What became of it is recorded, once, under the run's name.
    expect(records.kept).toEqual([
      expect.objectContaining({mch_refund_no: 'RF1', status: result.status, source: 'refunds.csv'}),
    ])
  })

  it('no connection on the first sending: nothing arrived, said as the transport failure, nothing recorded', async () => {
    await expect(send({refunds: [unreachable]})).rejects.toThrow('connection refused')
  })
})
