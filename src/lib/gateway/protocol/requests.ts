/**
 * The request parameters of section 4, one table per operation, with the lengths of the
 * document. Parameters travel as form fields, so the wire schema is over strings. The same
 * check runs in the client (nothing bad is sent) and in the sandbox (which answers with the
 * gateway's codes).
 *
 * Where the document states two limits, the one "always within range" is used: attach 127,
 * device_id 21 on create-order. `sign` is String(256) in the document, yet a 2048-bit key
 * signs 512 hex characters: up to 1024 (a 4096-bit key) is allowed.
 */
import * as z from 'zod/mini'

import {ALL_CHANNELS, CHANNEL_REQUIRED, type Operation, THB_ONLY_CHANNELS, channelsFor} from './channels.js'
import {CURRENCIES} from './money.js'

type FieldKind = 'text' | 'int' | 'channel' | 'currency' | 'timestamp' | 'img_type'

interface Field {
  kind: FieldKind
  max: number
  required: boolean
}

const text = (max: number, required = false): Field => ({kind: 'text', max, required})
const int = (required = false): Field => ({kind: 'int', max: 16, required})

const AUTH = {
  appid: text(32, true),
  nonce_str: text(32, true),
  sign: text(1024, true),
  version: text(32),
}
/** The three numbers an order is known by (section 2.2); most operations take any one. */
export const ORDER_NUMBER_FIELDS = ['mch_order_no', 'gw_order_no', 'channel_order_no'] as const
const ORDER_NUMBERS = Object.fromEntries(ORDER_NUMBER_FIELDS.map((name) => [name, text(32)]))
const timeStamp = (required: boolean): Field => ({kind: 'timestamp', max: 256, required})
const channel = (operation: Operation): Field => ({kind: 'channel', max: 32, required: CHANNEL_REQUIRED[operation]})
const currency: Field = {kind: 'currency', max: 16, required: true}

const REQUEST_FIELDS: Record<Operation, Record<string, Field>> = {
  native_pay: {
    ...AUTH,
    time_stamp: timeStamp(false),
    channel: channel('native_pay'),
    mch_order_no: text(32, true),
    total_fee: int(true),
    fee_type: currency,
    notify_url: text(256),
    img_type: {kind: 'img_type', max: 3, required: false},
    product: text(512),
    attach: text(127),
    device_id: text(21),
    operator_id: text(32),
    tmn_expire_time: int(),
    expire_time: int(),
  },
  order_query: {...AUTH, time_stamp: timeStamp(true), ...ORDER_NUMBERS, channel: channel('order_query')},
  order_refund: {
    ...AUTH,
    time_stamp: timeStamp(false),
    ...ORDER_NUMBERS,
    channel: channel('order_refund'),
    total_fee: int(true),
    fee_type: currency,
    mch_refund_no: text(32, true),
    refund_fee: int(true),
    attach: text(127),
    device_id: text(32),
    operator_id: text(32),
  },
  refund_query: {
    ...AUTH,
    time_stamp: timeStamp(true),
    ...ORDER_NUMBERS,
    channel: channel('refund_query'),
    total_fee: int(true),
    fee_type: currency,
    mch_refund_no: text(32, true),
    refund_fee: int(true),
    attach: text(127),
    device_id: text(32),
    operator_id: text(32),
  },
  order_close: {...AUTH, time_stamp: timeStamp(true), ...ORDER_NUMBERS, channel: channel('order_close')},
}

/** The longest value the document allows for a field of an operation, in characters. */
export function fieldMax(operation: Operation, field: string): number {
  const spec = REQUEST_FIELDS[operation][field]
  if (!spec) throw new Error(`${operation} has no field ${field}`)
  return spec.max
}

/** The parameters the document names for an operation. */
export const knownFields = (operation: Operation): string[] => Object.keys(REQUEST_FIELDS[operation])

/** Operations that name their order by one of three numbers; create names it by mch_order_no alone. */
const ONE_OF_THREE: readonly Operation[] = ['order_query', 'order_refund', 'refund_query', 'order_close']

export type RequestProblemKind =
  'missing' | 'order_number_missing' | 'too_long' | 'invalid' | 'channel_not_taken' | 'currency_not_taken'

export interface RequestProblem {
  kind: RequestProblemKind
  field: string
  message: string
}

/** The check of a field's value beyond its length. */
function valueCheck(field: Field): z.core.$ZodCheck<string> | undefined {
  switch (field.kind) {
    case 'int':
      return z.regex(/^\d+$/, {message: 'a whole number of minor units'})
    case 'currency':
      return z.refine((v: string) => (CURRENCIES as readonly string[]).includes(v), {
        message: `one of ${CURRENCIES.join(', ')}`,
      })
    case 'channel':
      return z.refine((v: string) => (ALL_CHANNELS as readonly string[]).includes(v), {
        message: `a channel: ${ALL_CHANNELS.join(', ')}`,
      })
    case 'timestamp':
      // The document's form, 14 digits yyyyMMddHHmmss (gw sends it), or epoch seconds or
      // milliseconds, as the gateway's published SDKs send it.
      return z.regex(/^(\d{14}|\d{13}$|\d{10}$)/, {
        message: '14 digits yyyyMMddHHmmss, or epoch seconds or milliseconds',
      })
    case 'img_type':
      return z.refine((v: string) => v === 'png' || v === 'svg', {message: 'png or svg'})
    default:
      return undefined
  }
}

function valueSchema(field: Field): z.ZodMiniType<string> {
  const check = valueCheck(field)
  const max = z.maxLength(field.max, {message: `at most ${field.max} characters`})
  return check ? z.string().check(max, check) : z.string().check(max)
}

const schemaOf = (fields: Record<string, Field>) =>
  z.looseObject(
    Object.fromEntries(Object.entries(fields).map(([name, field]) => [name, z.optional(valueSchema(field))])),
  )
const SCHEMAS: Record<Operation, z.ZodMiniType> = {
  native_pay: schemaOf(REQUEST_FIELDS.native_pay),
  order_query: schemaOf(REQUEST_FIELDS.order_query),
  order_refund: schemaOf(REQUEST_FIELDS.order_refund),
  refund_query: schemaOf(REQUEST_FIELDS.refund_query),
  order_close: schemaOf(REQUEST_FIELDS.order_close),
}

/**
 * Every problem of a request, in the order the gateway would answer them: missing fields,
 * no order number, over-long fields, invalid values, a channel the operation does not take,
 * a currency the channel does not take.
 */
export function checkRequest(
  operation: Operation,
  params: Readonly<Record<string, string | undefined>>,
): RequestProblem[] {
  const fields = REQUEST_FIELDS[operation]
  const problems: RequestProblem[] = []
  for (const [name, field] of Object.entries(fields)) {
    if (field.required && (params[name] === undefined || (params[name] === '' && name !== 'sign'))) {
      problems.push({kind: 'missing', field: name, message: `${name} is required`})
    }
  }
  if (ONE_OF_THREE.includes(operation) && !ORDER_NUMBER_FIELDS.some((name) => params[name])) {
    problems.push({
      kind: 'order_number_missing',
      field: 'mch_order_no',
      message: `one of ${ORDER_NUMBER_FIELDS.join(', ')} is required`,
    })
  }
  const result = SCHEMAS[operation].safeParse(params)
  if (!result.success) {
    for (const issue of result.error.issues) {
      const name = String(issue.path[0] ?? '')
      if (params[name] === undefined || (params[name] === '' && fields[name]?.required)) continue
      const kind: RequestProblemKind = issue.code === 'too_big' ? 'too_long' : 'invalid'
      problems.push({kind, field: name, message: `${name} must be ${issue.message}`})
    }
  }
  const value = params.channel
  if (value && (ALL_CHANNELS as readonly string[]).includes(value) && !channelsFor(operation).includes(value)) {
    problems.push({
      kind: 'channel_not_taken',
      field: 'channel',
      message: `${operation} does not take channel ${value}; it takes ${channelsFor(operation).join(', ')}`,
    })
  }
  const currency = params.fee_type
  if (operation === 'native_pay' && value && THB_ONLY_CHANNELS.includes(value) && currency && currency !== 'THB') {
    problems.push({
      kind: 'currency_not_taken',
      field: 'fee_type',
      message: `channel ${value} takes THB only (the document: Thailand only), not ${currency}`,
    })
  }
  return problems
}
