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
  /** Without trailing zeros: 50, 50.0 and 50.00 are the same amount. */
  fraction: string
}

/** Reads `150.50`; throws AmountError for anything else (a sign, separators, letters). */
export function parseDecimal(text: string): Decimal {
  const match = /^(\d+)(?:\.(\d*))?$/.exec(text.trim())
  if (!match)
    throw new AmountError(
      `${quoted(text)} is not an amount; write it like 150.50 (digits, at most one decimal point, no sign or separators)`,
    )
  return {whole: match[1]!, fraction: (match[2] ?? '').replace(/0+$/, '')}
}

/** `150.50` THB -> 15050. Throws AmountError with a sentence a user can act on. */
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
export function formatAmount(minor: number | undefined, currency: string | undefined): string {
  if (minor === undefined || Number.isNaN(minor)) return '-'
  if (!currency || exponentOf(currency) === undefined) return `${minor}${currency ? ` ${currency}` : ''}`
  return `${toDecimal(minor, currency)} ${currency.toUpperCase()}`
}
