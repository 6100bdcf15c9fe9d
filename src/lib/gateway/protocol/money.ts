/**
 * Amounts: integers in minor units on the wire, decimals for people. Conversion is exact
 * (string arithmetic, no floating point); a decimal with more places than the currency has
 * is an error, never a rounding.
 */
import {quoted} from '../../untrusted.js'

export const CURRENCIES = ['THB', 'MYR', 'JPY', 'AED'] as const
type Currency = (typeof CURRENCIES)[number]

/** Minor-unit exponent per currency. CNY appears only as a cash currency in responses. */
const EXPONENT: Record<string, number> = {THB: 2, MYR: 2, AED: 2, JPY: 0, CNY: 2}

export function isCurrency(value: string): value is Currency {
  return (CURRENCIES as readonly string[]).includes(value)
}

export function exponentOf(currency: string): number | undefined {
  return EXPONENT[currency.toUpperCase()]
}

export class AmountError extends Error {}

/** Largest amount in minor units that survives JSON and arithmetic exactly. */
const MAX_MINOR_UNITS = Number.MAX_SAFE_INTEGER

/** A decimal amount as people write it: digits, at most one decimal point, no sign or separators. */
interface Decimal {
  whole: string
  /** As written: 50, 50.0 and 50.00 are the same amount, but 1.500 is not 1.50 (see readAmountText). */
  fraction: string
}

/** Reads `150.50`; throws AmountError for anything else (a sign, separators, letters). */
function parseDecimal(text: string): Decimal {
  const match = /^(\d+)(?:\.(\d*))?$/.exec(text.trim())
  if (!match)
    throw new AmountError(
      `${quoted(text)} is not an amount; write it like 150.50 (digits, at most one decimal point, no sign or separators)`,
    )
  return {whole: match[1]!, fraction: match[2] ?? ''}
}

/**
 * `150.50` THB -> 15050. Throws AmountError with a sentence a user can act on. The places are
 * counted as written: `1.500` THB is three places, refused, never read as 1.50 once its zeros
 * are dropped (a German spreadsheet writes one thousand five hundred so).
 */
export function toMinorUnits(decimal: string, currency: string): number {
  const exponent = exponentOf(currency)
  if (exponent === undefined)
    throw new AmountError(`unknown currency ${quoted(currency, 16)}; allowed: ${CURRENCIES.join(', ')}`)
  const {whole, fraction} = parseDecimal(decimal)
  if (fraction.length > exponent) {
    throw new AmountError(
      exponent === 0
        ? `${currency} has no minor unit; ${quoted(decimal)} must be a whole number`
        : `${currency} has ${exponent} decimal places; ${quoted(decimal)} has more`,
    )
  }
  const minor = BigInt(whole) * 10n ** BigInt(exponent) + BigInt(fraction.padEnd(exponent, '0') || '0')
  if (minor > BigInt(MAX_MINOR_UNITS)) throw new AmountError(`${quoted(decimal)} is too large`)
  return Number(minor)
}

/** An amount as a person gives it: a decimal in the currency's units, or minor units. */
export type Amount = {decimal: string} | {minor: number}

/** The names of the two forms where they came from, for messages: flags or CSV columns. */
export interface AmountNames {
  decimal: string
  minor: string
}

/** The amount in minor units of `currency`, converted exactly; zero and below are AmountErrors too. */
export function minorUnitsOf(amount: Amount, currency: string): number {
  const minor = 'decimal' in amount ? toMinorUnits(amount.decimal, currency) : amount.minor
  if (!Number.isSafeInteger(minor) || minor <= 0) throw new AmountError('the amount must be above zero')
  return minor
}

/** Parses minor units given as text (`15050`). */
export function parseMinorUnits(text: string): number {
  const trimmed = text.trim()
  if (!/^\d+$/.test(trimmed))
    throw new AmountError(`${quoted(text)} is not a whole number of minor units (like 15050 for 150.50)`)
  const value = Number(trimmed)
  if (!Number.isSafeInteger(value)) throw new AmountError(`${quoted(text)} is too large`)
  return value
}

/** 15050 THB -> `150.50`. */
export function toDecimal(minor: number, currency: string): string {
  const exponent = exponentOf(currency) ?? 0
  const negative = minor < 0
  const digits = Math.abs(Math.trunc(minor))
    .toString()
    .padStart(exponent + 1, '0')
  const text = exponent === 0 ? digits : `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`
  return negative ? `-${text}` : text
}

/** 15050 THB -> `150.50 THB`; an unknown currency shows minor units as they are. */
/** Minor units as the decimal `_amount` beside a `_fee`, when the currency is one gw knows. */
export const decimalOf = (minor: number | undefined, currency: string | undefined) =>
  minor !== undefined && currency && isCurrency(currency) ? toDecimal(minor, currency) : undefined

export function formatAmount(minor: number | undefined, currency: string | undefined): string {
  if (minor === undefined || Number.isNaN(minor)) return '-'
  if (!currency || exponentOf(currency) === undefined) return `${minor}${currency ? ` ${currency}` : ''}`
  return `${toDecimal(minor, currency)} ${currency.toUpperCase()}`
}

/** The symbols and codes people write beside an amount, by currency. */
const CURRENCY_MARKS: Record<Currency, readonly string[]> = {
  THB: ['฿', 'THB'],
  MYR: ['RM', 'MYR'],
  JPY: ['¥', '￥', 'JPY'],
  AED: ['AED', 'د.إ'],
}
const MARKS = Object.entries(CURRENCY_MARKS)
  .flatMap(([currency, marks]) => marks.map((mark) => ({mark, currency: currency as Currency})))
  .sort((a, b) => b.mark.length - a.mark.length)

/** An amount read from text: its digits as a plain decimal, its sign, and the currency its text names. */
export interface TypedAmount {
  decimal: string
  negative: boolean
  currency?: Currency
}

const PLAIN_DECIMAL = /^\d+(\.\d+)?$/
/** One to three digits, a dot, exactly three digits: a decimal point, or a dot between thousands. */
const THOUSANDS_DOT = /^\d{1,3}\.\d{3}$/

/**
 * The refusal of `1.500` (or `1.500.000`): both readings, and how to write each so that it
 * cannot be taken for the other (`currency`'s decimals when known, else two).
 */
function dotReadings(text: string, currency: string | undefined, written = text): AmountError {
  const thousands = text.replace(/\./g, '')
  if (text.split('.').length > 2)
    return new AmountError(
      `${quoted(written)} has dots between thousands (${thousands}), which gw does not guess at; write ${thousands}`,
    )
  const [whole, fraction] = text.split('.') as [string, string]
  const places = exponentOf(currency ?? '') ?? 2
  const kept = fraction.replace(/0+$/, '')
  const decimal = kept.length > places ? `${whole}.${kept}` : places ? `${whole}.${kept.padEnd(places, '0')}` : whole
  return new AmountError(
    `${quoted(written)} is ambiguous: ${thousands} with a dot between thousands (as comma-decimal spreadsheets write it), or ${whole}${kept ? `.${kept}` : ''} with a decimal point; gw does not guess: write ${thousands}, or ${decimal}`,
  )
}

/** The refusal of `1,500` in a file separated by ";": both readings, and how to write each. */
function commaReadings(text: string, written: string): AmountError {
  const thousands = text.replace(/,/g, '')
  const [whole, ...rest] = text.split(',')
  const decimal = rest.length === 1 ? `${whole}.${rest[0]!.replace(/0+$/, '') || '0'}` : undefined
  const readings = decimal ? `, or ${decimal} with a decimal comma` : ''
  return new AmountError(
    `${quoted(written)} is ambiguous in a file separated by ";" (as comma-decimal spreadsheets write them): ${thousands} with a comma between thousands${readings}; gw does not guess: write ${thousands}${decimal ? `, or ${decimal}` : ''}`,
  )
}

/** What the amount rule accepts, for messages. */
const AMOUNT_FORMS =
  'digits with a point for decimals and optional commas between thousands (1,267.11), the currency symbol or code before or after (฿ THB RM MYR ¥ JPY AED د.إ)'

/**
 * An amount as people type it and spreadsheets export it: `1,267.11`, `฿1,281.33`,
 * `AED 1,295.55`, `4,570 JPY`, ` 300.00 `; a leading or trailing minus or parentheses make it
 * negative (and the caller refuses it as a refund, never turning it positive). Exact: the
 * digits are kept as text. Anything ambiguous is an AmountError saying what is allowed: a comma
 * as the decimal mark (`1.234,50`, `1,23`), a symbol of another currency than `currency` (the
 * row's), two signs, spaces inside the number.
 */
export function readAmountText(text: string, currency?: string, file: {decimalComma?: boolean} = {}): TypedAmount {
  const refuse = (why: string) => new AmountError(`${quoted(text)} ${why}; write ${AMOUNT_FORMS}`)
  // Most cells are plain digits (what exports write): they read as they are, but for a single
  // dot before exactly three digits, which spreadsheets in comma-decimal locales (German, and
  // Excel's ";" files) write between thousands: 1.500 is one thousand five hundred there.
  if (PLAIN_DECIMAL.test(text)) {
    if (THOUSANDS_DOT.test(text)) throw dotReadings(text, currency)
    return {decimal: text, negative: false}
  }
  let rest = text.replace(/[\u00a0\u2000-\u200b\u202f\u2212]/g, (c) => (c === '\u2212' ? '-' : ' ')).trim()
  let signs = 0
  let named: Currency | undefined
  for (let changed = true; changed && rest;) {
    changed = false
    const paren = /^\((.*)\)$/s.exec(rest)
    if (paren) {
      rest = paren[1]!.trim()
      signs++
      changed = true
    }
    if (rest.startsWith('-') || rest.endsWith('-')) {
      rest = (rest.startsWith('-') ? rest.slice(1) : rest.slice(0, -1)).trim()
      signs++
      changed = true
    }
    for (const {mark, currency: of} of MARKS) {
      const upper = rest.toUpperCase()
      if (!upper.startsWith(mark) && !upper.endsWith(mark)) continue
      if (named) throw refuse('names its currency twice')
      named = of
      rest = (upper.startsWith(mark) ? rest.slice(mark.length) : rest.slice(0, -mark.length)).trim()
      changed = true
      break
    }
  }
  if (signs > 1) throw refuse('has more than one minus sign or parentheses')
  const wanted = currency?.toUpperCase()
  if (named && wanted && isCurrency(wanted) && named !== wanted)
    throw refuse(`is written in ${named} but the row is ${wanted}`)
  if (THOUSANDS_DOT.test(rest) || /^\d{1,3}(\.\d{3}){2,}$/.test(rest)) throw dotReadings(rest, named ?? currency, text)
  // In a file of a comma-decimal locale (";"-separated), 1,500 may be one and a half.
  if (file.decimalComma && /^\d{1,3}(,\d{3})+$/.test(rest)) throw commaReadings(rest, text)
  if (PLAIN_DECIMAL.test(rest) || /^\d{1,3}(,\d{3})+(\.\d+)?$/.test(rest))
    return {decimal: rest.replace(/,/g, ''), negative: signs === 1, ...(named ? {currency: named} : {})}
  if (/^[\d.,]+$/.test(rest) && /,\d{1,2}$|\.\d{3},|\.\d{3}\./.test(rest))
    throw refuse('is ambiguous: a comma as the decimal mark is not read')
  throw refuse('is not an amount')
}
