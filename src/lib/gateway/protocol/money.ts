/**
 * Amounts: integers in minor units on the wire, decimals for people. Conversion is exact
 * (string arithmetic, no floating point); a decimal with more places than the currency has
 * is an error, never a rounding.
 */
import {quoted} from '../../untrusted.js'

export const CURRENCIES = ['THB', 'MYR', 'JPY', 'AED'] as const
export type Currency = (typeof CURRENCIES)[number]

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
 * `150.50` THB -> 15050 (`written`: the text it was read from, for messages). Throws AmountError with a sentence a user can act on. The places are
 * counted as written: `1.500` THB is three places, refused, never read as 1.50 once its zeros
 * are dropped (a German spreadsheet writes one thousand five hundred so).
 */
export function toMinorUnits(decimal: string, currency: string, written = decimal): number {
  const exponent = exponentOf(currency)
  if (exponent === undefined)
    throw new AmountError(`unknown currency ${quoted(currency, 16)}; allowed: ${CURRENCIES.join(', ')}`)
  const {whole, fraction} = parseDecimal(decimal)
  if (fraction.length > exponent) {
    // The text as the file wrote it, and the decimal it reads as when that differs (1,500 with a decimal comma).
    const said = written === decimal ? quoted(decimal) : `${quoted(written)} (${decimal})`
    // A float written in full by a program (pandas' 370.34999999999997): its digits are noise, not cents.
    const float =
      `${whole}${fraction}`.replace(/^0+/, '').length >= 15
        ? `: it looks like a number a program wrote in full (pandas, Python: ${Number(decimal).toFixed(exponent)}); round it when exporting (df.round(${exponent}), or to_csv(float_format='%.${exponent}f'))`
        : ''
    throw new AmountError(
      exponent === 0
        ? `${currency} has no minor unit; ${said} must be a whole number${float}`
        : `${currency} has ${exponent} decimal places; ${said} has more${float}`,
    )
  }
  const minor = BigInt(whole) * 10n ** BigInt(exponent) + BigInt(fraction.padEnd(exponent, '0') || '0')
  if (minor > BigInt(MAX_MINOR_UNITS)) throw new AmountError(`${quoted(decimal)} is too large`)
  return Number(minor)
}

/** An amount as a person gives it: a decimal in the currency's units, or minor units. */
/** A decimal that named its currency (฿5.00) is an amount of that currency only. */
export type Amount = {decimal: string; currency?: string} | {minor: number}

/** The names of the two forms where they came from, for messages: flags or CSV columns. */
export interface AmountNames {
  decimal: string
  minor: string
}

/** The amount in minor units of `currency`, converted exactly; zero and below are AmountErrors too. */
export function minorUnitsOf(amount: Amount, currency: string): number {
  if ('decimal' in amount && amount.currency && amount.currency !== currency)
    throw new AmountError(`the amount is in ${amount.currency}, the order in ${currency || 'a currency not known'}`)
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
