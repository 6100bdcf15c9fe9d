/**
 * Tolerant schemas for the envelope (2.1), each operation's data (2.3-2.7) and the
 * notification (section 6). Unknown fields pass through; amounts may arrive as numeric
 * strings; states are kept as the text the gateway sent. Fields the published SDK names
 * `ksher_*` are read as their `gw_*` names. zod's mini build: the same checks, a fraction of
 * the start-up (a gw command pays for every module it loads).
 */
import * as z from 'zod/mini'

import type {Operation} from './channels.js'
import {gatewayTimeIso} from './time.js'

/** The value given to `schema` after `prepare` (zod's preprocess). */
const prepared = <T extends z.ZodMiniType>(prepare: (value: unknown) => unknown, schema: T) =>
  z.pipe(z.transform(prepare), schema)
const integerText = z.pipe(z.string().check(z.regex(/^-?\d+$/)), z.transform(Number))

/** An integer amount sent as a number or a numeric string; empty means absent. */
const amount = prepared((v) => (v === '' || v === null ? undefined : v), z.optional(z.union([z.int(), integerText])))
/** A decimal the document types as a string (`rate`, "0.2101"): a number, as in notifications; other text is kept as it came. */
const decimal = prepared(
  (v) => (v === '' || v === null ? undefined : typeof v === 'string' && /^-?\d+(?:\.\d+)?$/.test(v) ? Number(v) : v),
  z.optional(z.union([z.number(), z.string()])),
)
const text = prepared((v) => (v === null ? undefined : typeof v === 'number' ? String(v) : v), z.optional(z.string()))
/** A time the gateway gives (`yyyy-MM-dd HH:mm:ss`, the merchant's local time): read in the profile's zone by `inGatewayZone`. */
const gatewayTime = text
const required = prepared((v) => (typeof v === 'number' ? String(v) : v), z.string())

/** Maps `ksher_order_no` to `gw_order_no` and the like, keeping what the gateway sent. */
function gatewayNames(value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value
  const out: Record<string, unknown> = {...(value as Record<string, unknown>)}
  for (const [key, v] of Object.entries(out)) {
    const match = /^ksher_(.+)$/.exec(key)
    if (match && out[`gw_${match[1]}`] === undefined) out[`gw_${match[1]}`] = v
  }
  return out
}
const record = <T extends z.core.$ZodLooseShape>(shape: T) => prepared(gatewayNames, z.looseObject(shape))

export const envelopeSchema = z.looseObject({
  code: z.union([z.number(), integerText]),
  msg: text,
  status_code: z.optional(z.unknown()),
  status_msg: text,
  time_stamp: text,
  version: text,
  sign: text,
  data: z.optional(z.unknown()),
})
export const orderCreatedSchema = record({
  result: required,
  appid: text,
  mch_order_no: required,
  gw_order_no: required,
  device_id: text,
  code_url: text,
  imgdat: text,
  trade_type: text,
  fee_type: text,
  total_fee: amount,
  PaymentID: text,
  PaymentCode: text,
  stalls_name: text,
})

export const orderRecordSchema = record({
  result: required,
  appid: text,
  mch_order_no: text,
  gw_order_no: text,
  channel_order_no: text,
  channel: text,
  attach: text,
  cash_fee: amount,
  cash_fee_type: text,
  fee_type: text,
  total_fee: amount,
  raw_total_fee: amount,
  openid: text,
  operation: text,
  operator_id: text,
  device_id: text,
  rate: decimal,
  time_end: gatewayTime,
})

export const refundCreatedSchema = record({
  result: required,
  appid: text,
  mch_order_no: text,
  gw_order_no: text,
  channel_order_no: text,
  mch_refund_no: required,
  gw_refund_no: text,
  channel_refund_no: text,
  channel: text,
  fee_type: text,
  total_fee: amount,
  refund_fee: amount,
  cash_refund_fee: amount,
  refund_time: gatewayTime,
})

export const refundOrderSchema = record({
  mch_refund_no: required,
  gw_refund_no: text,
  channel_refund_no: text,
  mch_refund_fee: amount,
  refund_state: required,
  refund_time: gatewayTime,
})

export const refundRecordSchema = record({
  result: required,
  appid: text,
  mch_order_no: text,
  gw_order_no: text,
  channel_order_no: text,
  channel_state: text,
  fee_type: text,
  total_fee: amount,
  cash_fee: amount,
  cash_fee_type: text,
  refund_count: amount,
  refund_fee: amount,
  time_end: gatewayTime,
  refund_orders: z._default(z.array(refundOrderSchema), []),
})

export const closeResultSchema = record({
  result: required,
  appid: text,
  mch_order_no: text,
})

export const notificationDataSchema = record({
  result: required,
  appid: text,
  mch_order_no: text,
  order_no: text,
  gw_order_no: text,
  channel_order_no: text,
  channel: text,
  total_fee: amount,
  fee_type: text,
  cash_fee: amount,
  cash_fee_type: text,
  time_end: text,
  openid: text,
  attach: text,
  operation: text,
})

const bounded = (max: number) => z.string().check(z.maxLength(max))
const named = (max: number) => z.string().check(z.minLength(1), z.maxLength(max))
const integer = z.union([z.int(), integerText])

/**
 * The payment notification as section 6 requires it: every required field present, with its
 * type, length and format. The canonical string has no separators, so a signed notification
 * whose text is moved from one field into another (`mch_order_no` swallowing `nonce_str=…`,
 * `time_end` swallowing `total_fee=…`) still verifies; it fails here.
 */
export const paymentNotificationSchema = z
  .pipe(
    z.transform(gatewayNames),
    z.looseObject({
      appid: named(32),
      nonce_str: named(32),
      openid: bounded(128),
      channel_order_no: bounded(32),
      operator_id: z.optional(bounded(32)),
      cash_fee_type: bounded(16),
      gw_order_no: named(32),
      // yyyy-MM-dd HH:mm:ss as the document's sample writes it, or its stated yyyyMMddHHmmss.
      time_end: z.string().check(z.regex(/^(?:\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}|\d{14})$/)),
      fee_type: named(16),
      attach: bounded(127),
      // The exchange rate and the cash amount are the wallet's side, as the gateway has them ("" when it has not).
      rate: z.union([z.number(), z.string().check(z.regex(/^(?:-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)?$/))]),
      result: z.literal('SUCCESS'),
      total_fee: integer,
      operation: bounded(32),
      device_id: z.optional(bounded(32)),
      cash_fee: z.union([integer, z.literal('')]),
      mch_order_no: named(32),
      order_no: named(32),
      channel: z.optional(bounded(32)),
    }),
  )
  .check(
    z.refine((data) => data.order_no === data.mch_order_no, {
      message: 'order_no differs from mch_order_no',
      path: ['order_no'],
    }),
  )

/**
 * An answer's gateway times (time_end, refund_time, each refund's refund_time) read in the zone
 * the gateway writes them in, as ISO 8601 with the offset, so every view, file and --json
 * document has one form whatever zone gw runs in. Notifications are not read through this: the
 * listener forwards what it verified.
 */
export function inGatewayZone<T>(data: T, zone: string): T {
  const read = (record: Record<string, unknown>) => {
    const out = {...record}
    for (const field of ['time_end', 'refund_time'])
      if (typeof out[field] === 'string') out[field] = gatewayTimeIso(out[field], zone)
    return out
  }
  const record = read(data as Record<string, unknown>)
  if (Array.isArray(record.refund_orders))
    record.refund_orders = record.refund_orders.map((r: Record<string, unknown>) => read(r))
  return record as T
}

export const RESPONSE_SCHEMAS = {
  native_pay: orderCreatedSchema,
  order_query: orderRecordSchema,
  order_refund: refundCreatedSchema,
  refund_query: refundRecordSchema,
  order_close: closeResultSchema,
} satisfies Record<Operation, z.ZodMiniType>

export type OrderCreated = z.infer<typeof orderCreatedSchema>
export type OrderRecord = z.infer<typeof orderRecordSchema>
export type RefundCreated = z.infer<typeof refundCreatedSchema>
export type RefundRecord = z.infer<typeof refundRecordSchema>
export type RefundOrder = z.infer<typeof refundOrderSchema>
export type CloseResult = z.infer<typeof closeResultSchema>
export type NotificationData = z.infer<typeof notificationDataSchema>
export type ResponseData<O extends Operation> = z.infer<(typeof RESPONSE_SCHEMAS)[O]>

/** The answer gw gives to end the gateway's delivery of a notification (section 6). */
export const NOTIFICATION_ACK = '{"result":"SUCCESS","msg":"OK"}'

/**
 * Whether an endpoint's answer ends delivery: an HTTP success whose body is what section 6 asks
 * for, a JSON object whose result is SUCCESS and whose msg is OK; spacing, key order and other
 * keys are free (`{"result": "SUCCESS", "msg": "OK"}` from Python's json.dumps is one).
 */
export function isAcknowledgement(status: number | null | undefined, body: string): boolean {
  if (!status || status < 200 || status >= 300) return false
  try {
    const parsed: unknown = JSON.parse(body)
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return false
    const {result, msg} = parsed as Record<string, unknown>
    return result === 'SUCCESS' && msg === 'OK'
  } catch {
    return false
  }
}

/** Retry delays after a failed delivery, in seconds (section 6). */
export const NOTIFICATION_RETRY_DELAYS = [1, 2, 2, 10, 30, 60, 600, 3600, 10_800, 18_000, 28_800, 43_200] as const

/** What a line about the notification shows: from the body as sent, verified or not. */
export interface NotificationFields {
  mch_order_no?: string
  gw_order_no?: string
  total_fee?: number
  fee_type?: string
  channel?: string
  /** As the gateway wrote it: the merchant's local time, no zone. */
  time_end?: string
  openid?: string
}

/** What a line about a notification shows of its `data` (nothing when it is not one). */
export function notificationFields(value: unknown): NotificationFields {
  const data = notificationDataSchema.safeParse(value)
  if (!data.success) return {}
  return {
    mch_order_no: data.data.mch_order_no ?? data.data.order_no,
    gw_order_no: data.data.gw_order_no,
    total_fee: data.data.total_fee,
    fee_type: data.data.fee_type,
    channel: data.data.channel,
    time_end: data.data.time_end,
    openid: data.data.openid,
  }
}
