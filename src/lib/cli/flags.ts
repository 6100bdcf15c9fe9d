/** Flags shared by several commands: the network, --live confirmation, naming an order, lists (a file's: file-flags.ts). */
import {Args, Flags} from '@oclif/core'

import {usageError} from '../errors.js'
import {quoted} from '../untrusted.js'
import type {ListFilter} from '../orders/list.js'
import type {OrderReference} from '../orders/reference.js'
import {durationSeconds, durationText} from './duration.js'
import {batchFlags, fileFlags} from './file-flags.js'
import {parseTimeRange} from './time-range.js'
import {checkOutputs} from '../files/output-paths.js'
import {ALL_CHANNELS, CURRENCIES, DEFAULT_GATEWAY_ZONE, toMinorUnits, zoneName} from '../gateway/protocol/index.js'
import {readAmountFlag} from './amount-input.js'

type Underscored<S extends string> = S extends `${infer A}-${infer B}` ? `${A}_${Underscored<B>}` : S

/** Flags named after fields of the API document (`--mch-order-no` is `mch_order_no`), as those fields. */
export function fieldsOf<F extends Record<string, unknown>, K extends keyof F & string>(
  flags: F,
  names: readonly K[],
): {[P in K as Underscored<P>]: F[P]} {
  return Object.fromEntries(names.map((name) => [name.replaceAll('-', '_'), flags[name]])) as never
}

interface ChoiceFlag {
  type: string
  char?: string
  options?: readonly string[]
}

/**
 * The command line with each value of a flag that has fixed choices written as the choice it
 * names in any case (`--fee-type thb`, `--channel WeChat`), before oclif checks it.
 */
export function canonicalChoices(argv: readonly string[], flags: Readonly<Record<string, ChoiceFlag>>): string[] {
  const byName = new Map<string, ChoiceFlag>()
  for (const [name, flag] of Object.entries(flags)) {
    byName.set(`--${name}`, flag)
    if (flag.char) byName.set(`-${flag.char}`, flag)
  }
  const canonical = (flag: ChoiceFlag | undefined, value: string) =>
    flag?.options?.find((option) => option.toLowerCase() === value.toLowerCase()) ?? value
  const out = [...argv]
  for (let i = 0; i < out.length && out[i] !== '--'; i++) {
    const [name, value] = out[i]!.split(/=(.*)/s, 2)
    const flag = byName.get(name!)
    if (!flag?.options) continue
    if (value !== undefined) out[i] = `${name}=${canonical(flag, value)}`
    else if (i + 1 < out.length) out[i + 1] = canonical(flag, out[i + 1]!)
  }
  return out
}

/** The settings of a profile, as `profile add` and `profile set` take them. */
export const profileFlags = {
  'base-url': Flags.string({description: 'address up to the operation name, like https://host/Gateway'}),
  'private-key': Flags.string({description: 'PEM file of the merchant private key (PKCS#1 or PKCS#8)'}),
  'gateway-public-key': Flags.string({description: 'PEM file of the gateway public key (SPKI or PKCS#1)'}),
  'sign-scheme': Flags.string({description: 'signature scheme (default: rsa-md5)', options: ['rsa-md5', 'rsa-sha256']}),
  live: Flags.boolean({
    description: 'a production account: money moves, and commands that move it ask first (--no-live: a test account)',
    allowNo: true,
  }),
  'gateway-zone': Flags.string({
    description: `the time zone the gateway writes its times in (time_end, refund_time), an IANA name (default: ${DEFAULT_GATEWAY_ZONE})`,
  }),
  'allow-plain-http': Flags.boolean({
    description:
      'take a --live profile whose base URL is plain http:// to another machine (refused without it: nothing on the way is encrypted)',
  }),
}

/**
 * The flags of `order list` and `refund list`: which part of the history, checked again or not,
 * and where to write it. `amount`: what --amount selects, in the list's words.
 */
export const listFlags = (states: readonly string[], amount: string) => ({
  since: Flags.string({description: 'from this time: a date, a date and time, today, yesterday, or 30m, 24h, 7d ago'}),
  until: Flags.string({description: 'before this time (same forms as --since; a day named is up to its end)'}),
  channel: Flags.string({description: 'only this channel', options: [...ALL_CHANNELS]}),
  state: Flags.string({
    description: 'only this state (after --refresh: the state at the gateway now)',
    options: [...states],
  }),
  refresh: Flags.boolean({description: 'ask the gateway for the state of each listed order or refund first'}),
  amount: Flags.string({description: `${amount} (150.50, or ฿150.50 for one currency)`}),
  payer: Flags.string({description: 'only orders of this payer (an openid), where a query or notification showed it'}),
  out: Flags.string({description: 'also write the list to this file, .csv or .xlsx'}),
  zone: zoneFlag,
  limit: Flags.integer({
    description: 'at most this many, the newest: on the screen, in --json and in --out alike',
    min: 1,
  }),
  bom: fileFlags().bom,
  ...batchFlags('queries', 8),
})

/** An address gw POSTs to (--to, --forward-to): http or https, a real port, no user name or password. */
export function checkEndpoint(flag: string, url: URL): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw usageError(
      `${flag} ${quoted(url.href)} is not an http:// or https:// address.`,
      'Give it with its scheme, like https://shop.example/hooks/pay or http://127.0.0.1:8788/notify.',
    )
  if (url.username || url.password)
    throw usageError(
      `${flag} must not carry a user name or password (user:password@host).`,
      'Give the address without them.',
    )
  if (url.port === '0') throw usageError(`${flag} ${quoted(url.href)}: port 0 is not a port to send to.`)
}

/** An address given as text (--notify-url), checked as checkEndpoint checks one: `localhost:3000/hook` (no scheme) is refused. */
export function endpointOf(flag: string, text: string): URL {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw usageError(
      `${flag} ${quoted(text)} is not an address.`,
      'Give it whole, like https://shop.example/hooks/pay.',
    )
  }
  checkEndpoint(flag, url)
  return url
}

/** What the list flags ask for, checked before the history is read or the gateway asked (--out included). */
export function listFilterOf(flags: {
  limit?: number
  since?: string
  until?: string
  channel?: string
  state?: string
  refresh: boolean
  concurrency: number
  rate?: number
  out?: string
  amount?: string
  payer?: string
}): ListFilter {
  if (flags.out) checkOutputs(undefined, [{flag: '--out', path: flags.out, table: true}])
  return {
    ...parseTimeRange(flags),
    channel: flags.channel,
    state: flags.state,
    amounts: flags.amount === undefined ? undefined : amountsOf(flags.amount),
    payer: flags.payer,
    refresh: flags.refresh,
    pace: {concurrency: flags.concurrency, rate: flags.rate},
  }
}

/**
 * The minor units `--amount` stands for in each currency it can be an amount of (150.50 is 15050
 * in THB, MYR and AED, nothing in JPY); a symbol or code names the one currency (฿150.50).
 */
function amountsOf(text: string): {fee: number; currency: string}[] {
  const read = readAmountFlag(text, '--amount')
  const currencies = read.currency ? [read.currency] : CURRENCIES
  const amounts = read.negative
    ? []
    : currencies.flatMap((currency) => {
        try {
          return [{fee: toMinorUnits(read.decimal, currency), currency}]
        } catch {
          return []
        }
      })
  if (!amounts.length)
    throw usageError(
      `--amount ${quoted(text)} is not an amount in ${currencies.join(', ')}.`,
      'Give it as the order or refund shows it, like 150.50 (JPY: whole yen).',
    )
  return amounts
}

/**
 * A flag of a length of time, read as every other (duration.ts): 60, 60s, 5m, 2h, 1d. Its value is
 * in seconds, from `min` to `max`.
 */
export const durationFlag = (options: {
  description: string
  min: number
  max: number
  default?: number
  helpGroup?: string
}) =>
  Flags.custom<number>({
    description: options.description,
    helpGroup: options.helpGroup,
    default: options.default,
    async parse(input) {
      const seconds = durationSeconds(input)
      if (seconds === undefined)
        throw new Error(
          `${quoted(input)} is not a length of time: give seconds (60) or a number with its unit: 60s, 5m, 2h, 1d`,
        )
      if (seconds < options.min)
        throw new Error(`${quoted(input)} is under ${durationText(options.min)}, the least it takes`)
      if (seconds > options.max)
        throw new Error(`${quoted(input)} is over ${durationText(options.max)}, the most it takes`)
      return seconds
    },
  })()

/** Flags of every command that talks to the gateway. */
export const networkFlags = {
  timeout: durationFlag({
    description: 'time to wait for each answer (connect: at most 5s), up to 5m: 15, 15s, 2m',
    default: 15,
    min: 1,
    max: 300,
    helpGroup: 'NETWORK',
  }),
  verbose: Flags.boolean({
    description: 'show each request (parameters, signed string, signature) and raw answer on stderr; nothing secret',
    helpGroup: 'NETWORK',
  }),
}

/** Flags of commands that move money on a --live profile. */
export const liveFlags = {
  yes: Flags.boolean({char: 'y', description: 'do not ask for confirmation on a --live profile'}),
}

/**
 * Usage lines written by hand: oclif's own list every choice of every flag inline (fourteen
 * channels) and tangle exclusive flags (refund create's read `[--dry-run [--from-csv <value> |
 * … |  | …]]`). The forms a person types, the rest as [FLAGS], each described below them.
 */
export const usage = {
  /** A command on one order, by its merchant or gateway number (--channel-order-no is among the flags): lines that do not wrap. */
  order: (more = '') => [
    `<%= command.id %> MCH_ORDER_NO${more} [FLAGS]`,
    `<%= command.id %> --gw-order-no N${more} [FLAGS]`,
  ],
  /** A command that finds an order by any number support has (anyNumberArgs). */
  anyNumber: (more = '') => [
    `<%= command.id %> NUMBER${more} [FLAGS]`,
    `<%= command.id %> --gw-order-no N${more} [FLAGS]`,
  ],
  list: '<%= command.id %> [--since T] [--until T] [--state S] [--refresh] [FLAGS]',
}

/**
 * The three ways to name an order, shared by every command that looks one up. Every positional
 * argument of gw is `ignoreStdin`: given on the command line only, never read by oclif from a
 * standard input that is not a terminal (a pipe's text would become an order number, and nohup's
 * unreadable stdin ended gw with EBADF).
 */
export const orderArgs = {
  mch_order_no: Args.string({ignoreStdin: true, description: 'merchant order number'}),
}

/**
 * The argument of a command that finds an order by any number support has (orders/any-number): the
 * order's merchant, gateway or channel number, or a refund number of it this machine knows.
 */
export const anyNumberArgs = {
  number: Args.string({
    ignoreStdin: true,
    description:
      "any number of the order: the merchant's order number, the gateway's, the channel's (a wallet's receipt), or a refund number of it this machine knows (gw's or the gateway's)",
  }),
}

export const orderFlags = {
  'gw-order-no': Flags.string({description: "the gateway's order number instead of the merchant's"}),
  'channel-order-no': Flags.string({description: "the channel's order number instead of the merchant's"}),
  channel: Flags.string({
    description: 'channel of the order (default: the local history, else each channel in turn)',
    options: [...ALL_CHANNELS],
  }),
}

/** The order a command names, by its argument (`argument`: how its usage calls it) or one of the flags. */
export function orderReference(
  mchOrderNo: string | undefined,
  flags: {'gw-order-no'?: string; 'channel-order-no'?: string},
  argument = 'MCH_ORDER_NO',
): OrderReference {
  const ref: OrderReference = {
    mch_order_no: mchOrderNo,
    gw_order_no: flags['gw-order-no'],
    channel_order_no: flags['channel-order-no'],
  }
  const given = Object.values(ref).filter(Boolean).length
  if (given === 0) throw usageError(`Name the order: ${argument}, --gw-order-no or --channel-order-no.`)
  if (given > 1) throw usageError(`Name the order one way only: ${argument}, --gw-order-no or --channel-order-no.`)
  return ref
}

/**
 * --zone of a command that shows times: the clock the run reads and writes its times on (its
 * views, --json, the files it writes, and the days --since and --until name), as if this machine
 * were in that zone (GwCommand applies it).
 */
export const zoneFlag = Flags.string({
  description:
    "whose clock the times are on: local (this machine's, the default), gateway (the profile's gateway zone, as receipts show times) or an IANA name like Asia/Bangkok",
})

/**
 * The zone `--zone` names for the times of a view: undefined for this machine's (`local`, the
 * default), the profile's gateway zone (`gateway`: the customer's clock, as the gateway and the
 * wallet's receipts write times), or any IANA name (a customer abroad).
 */
export function zoneOf(text: string | undefined, gatewayZone: string): string | undefined {
  const said = text?.trim().toLowerCase()
  if (said === undefined || said === 'local') return undefined
  if (said === 'gateway') return gatewayZone
  const zone = zoneName(text!)
  if (!zone)
    throw usageError(
      `--zone ${quoted(text)} is not a time zone.`,
      "Give local (this machine's clock, the default), gateway (the gateway's, as receipts show times) or an IANA name like Asia/Bangkok.",
    )
  return zone
}

/** The flags of one refund: its amount in either form, its number, and what the order should be. */
export const refundFlags = {
  amount: Flags.string({
    description: 'refund amount as a decimal in the order currency, e.g. 50.00',
    exclusive: ['refund-fee'],
  }),
  'refund-fee': Flags.integer({description: 'refund amount in minor units, e.g. 5000', exclusive: ['amount']}),
  'mch-refund-no': Flags.string({description: 'merchant refund number (default: generated); each may be used once'}),
  'fee-type': Flags.string({
    description: 'currency of the order (checked against the order query)',
    options: [...CURRENCIES],
  }),
  'total-fee': Flags.integer({description: 'order total in minor units (checked against the order query)'}),
  again: Flags.boolean({
    description: 'refund even though an identical refund (same order and amount) was made in the last 7 days',
  }),
}
