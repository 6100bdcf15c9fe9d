/** Amounts as people give them on the command line: a decimal (`--amount 150.50`) or minor units (`--total-fee 15050`). */
import {usageError} from '../errors.js'
import {type Amount, AmountError, type AmountNames, minorUnitsOf} from '../gateway/protocol/index.js'

/** Exactly one of the two forms. */
export function amountOf(decimal: string | undefined, minor: number | undefined, names: AmountNames): Amount {
  if (decimal !== undefined && minor !== undefined)
    throw usageError(`Give ${names.decimal} or ${names.minor}, not both.`)
  if (decimal !== undefined) return {decimal}
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
