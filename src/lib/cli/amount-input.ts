/**
 * Amounts as people give them on the command line: a decimal (`--amount 150.50`) or minor units
 * (`--total-fee 15050`). A decimal is read as amounts in files are (readAmountText, one reader):
 * `฿5.00`, `50 baht`, `50 บาท`, `AED 12`, Thai digits; its mark is the point.
 */
import {usageError} from '../errors.js'
import {quoted} from '../untrusted.js'
import {
  type Amount,
  AmountError,
  type AmountNames,
  CURRENCIES,
  type TypedAmount,
  exponentOf,
  minorUnitsOf,
  readAmountText,
  toMinorUnits,
} from '../gateway/protocol/index.js'

/** An amount given to `flag`, read as an amount in a file is; what it is not is a usage error naming the flag. */
export function readAmountFlag(text: string, flag: string): TypedAmount {
  try {
    return readAmountText(text.trim(), undefined, {mark: 'point', by: 'on the command line'})
  } catch (error) {
    if (error instanceof AmountError) throw usageError(`${flag}: ${error.message}. Nothing was sent.`)
    throw error
  }
}

/**
 * A decimal amount that is one in the currency given, or else in some currency gw knows, checked
 * before anything is asked of the gateway (whose answer gives the order's currency): 5.555 is none,
 * whatever the order.
 */
function checkDecimal(decimal: string, flag: string, currency: string | undefined): void {
  if (currency) {
    minorUnitsOrUsage({decimal}, currency, {decimal: flag, minor: flag})
    return
  }
  const problems = CURRENCIES.map((currency) => {
    try {
      toMinorUnits(decimal, currency)
      return undefined
    } catch (error) {
      return (error as Error).message
    }
  })
  if (problems.includes(undefined)) return
  const places = CURRENCIES.map((currency) => `${currency} ${exponentOf(currency)}`).join(', ')
  throw usageError(
    problems.every((problem) => /decimal places|no minor unit/.test(problem!))
      ? `${flag} ${quoted(decimal)} has more decimal places than any currency gw knows (${places}). Nothing was sent.`
      : `${flag}: ${problems[0]}. Nothing was sent.`,
    'Give the amount as the order shows it, like 150.50 (JPY: whole yen).',
  )
}

/**
 * Exactly one of the two forms; a decimal that is no amount in `currency` (when given), or in any
 * currency, is refused at once.
 */
export function amountOf(
  decimal: string | undefined,
  minor: number | undefined,
  names: AmountNames,
  currency?: string,
): Amount {
  if (decimal !== undefined && minor !== undefined)
    throw usageError(`Give ${names.decimal} or ${names.minor}, not both.`)
  if (decimal !== undefined) {
    const read = readAmountFlag(decimal, names.decimal)
    if (read.negative)
      throw usageError(
        `${names.decimal} ${quoted(decimal)} is negative. Nothing was sent.`,
        'Give the amount itself, like 150.50.',
      )
    if (read.currency && currency && read.currency !== currency)
      throw usageError(
        `${names.decimal} ${quoted(decimal)} is in ${read.currency}, but --fee-type says ${currency}. Nothing was sent.`,
      )
    checkDecimal(read.decimal, names.decimal, read.currency ?? currency)
    return read.currency ? {decimal: read.decimal, currency: read.currency} : {decimal: read.decimal}
  }
  if (minor !== undefined) return {minor}
  throw usageError(`Give the amount: ${names.decimal} 150.50 or ${names.minor} 15050.`)
}

/** The amount in minor units of `currency`; an inexact, zero or negative amount is a usage error. */
export function minorUnitsOrUsage(amount: Amount, currency: string, names: AmountNames): number {
  try {
    return minorUnitsOf(amount, currency)
  } catch (error) {
    if (error instanceof AmountError) {
      throw usageError(`${'decimal' in amount ? names.decimal : names.minor}: ${error.message}. Nothing was sent.`)
    }
    throw error
  }
}
