/** Amounts as people give them: a decimal (`--amount 150.50`) or minor units (`--total-fee 15050`). */
import {usageError} from '../errors.js'
import {AmountError, toMinorUnits} from '../gateway/protocol/index.js'

export interface AmountInput {
  /** Decimal text in the currency's units. */
  amount?: string
  /** Minor units. */
  minor?: number
  /** The flag or column names, for messages: e.g. ['--amount', '--total-fee']. */
  names: [decimal: string, minor: string]
}

/** Exactly one of the two forms, converted without rounding; zero and negative are refused. */
export function minorUnitsFrom(input: AmountInput, currency: string): number {
  const [decimalName, minorName] = input.names
  if (input.amount !== undefined && input.minor !== undefined)
    throw usageError(`Give ${decimalName} or ${minorName}, not both.`)
  let minor = input.minor
  if (input.amount !== undefined) {
    try {
      minor = toMinorUnits(input.amount, currency)
    } catch (error) {
      if (error instanceof AmountError) throw usageError(`${decimalName}: ${error.message}. Nothing was sent.`)
      throw error
    }
  }
  if (minor === undefined) throw usageError(`Give the amount: ${decimalName} 150.50 or ${minorName} 15050.`)
  if (!Number.isSafeInteger(minor) || minor <= 0) throw usageError(`The amount must be above zero. Nothing was sent.`)
  return minor
}
