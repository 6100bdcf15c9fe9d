/** What `gw sandbox start` shows once it listens, and of each request it answers. */
import type {RequestRecord} from '../../sandbox/request-log.js'
import type {SandboxInfo} from '../../sandbox/server.js'
import {type SuggestedFor, gwCommand} from '../errors.js'
import {shown} from '../untrusted.js'
import {fields} from './fields.js'
import {green, red, yellow} from './style.js'
import {plural} from '../plural.js'

interface SandboxSummary extends SandboxInfo {
  data_dir: string
  profile: string | null
  /** The "sandbox" profile is another sandbox's, kept: this one has a profile of its own. */
  other_sandbox: {appid: string; base_url: string} | null
  default_profile: string | null
  strict: boolean
}

/**
 * A request record with every value the client sent made safe to show (controls visible,
 * keys withheld, bounded): for the JSON lines of --json and --log.
 */
export function safeRecord(record: RequestRecord): RequestRecord {
  const safe = (value: string) => shown(value, 2000)
  const params = Object.fromEntries(Object.entries(record.params).map(([k, v]) => [safe(k), safe(v)]))
  const {signature} = record
  return {
    ...record,
    method: safe(record.method),
    operation: safe(record.operation),
    appid: safe(record.appid),
    order: safe(record.order),
    ...(record.err_msg === undefined ? {} : {err_msg: safe(record.err_msg)}),
    params,
    ...(signature ? {signature: {...signature, canonical: safe(signature.canonical)}} : {}),
  }
}

/**
 * One line per request (time, method, operation, appid, order, result or err_code, ms), then
 * the warnings of departures accepted, and for a signature that does not verify, why.
 */
export function requestLines(record: RequestRecord, stream: {isTTY?: boolean}): string {
  const r = safeRecord(record)
  const good = r.err_msg === undefined && !r.outcome.startsWith('fault')
  const outcome = good ? green(r.outcome, stream) : red(r.outcome, stream)
  const line = [r.time, r.method, r.operation, r.appid || '-', r.order || '-', outcome, `${r.ms}ms`].join(' ')
  const more = r.warnings.map((w) => `  ${yellow('warning', stream)}: ${w}`)
  if (r.err_msg && !r.signature) more.push(`  ${shown(r.err_msg)}`)
  if (r.signature) {
    const {canonical, fingerprint, cause, appid, scheme} = r.signature
    more.push(
      `  canonical string built from what arrived: ${canonical}`,
      `  verified with the public key of ${appid} (${scheme}), fingerprint ${fingerprint}`,
      `  signature received: ${r.params.sign ?? ''}`,
      `  likeliest cause: ${cause ?? 'none of the usual ones; compare the canonical string above with the one your code signed'}`,
    )
  }
  return [line, ...more].join('\n')
}

export function sandboxView(summary: SandboxSummary, faults: string | undefined): string {
  const merchant = summary.merchants[0]!
  const name = summary.profile
  const isDefault = summary.default_profile === name
  const use = name && `--profile ${name} or ${gwCommand(undefined, 'profile', 'use', name)}`
  const profile = name
    ? `"${name}"${isDefault ? ' (default)' : ` (not the default; use ${use})`}`
    : 'none (--no-profile)'
  const other = summary.other_sandbox
  const kept = other
    ? `profile "sandbox" is another sandbox's (${other.appid} at ${other.base_url}), kept as it is; --replace-profile takes it`
    : undefined
  const tryIt = gwCommand(
    name ? {name, named: !isDefault} : undefined,
    ...'order create --channel wechat --amount 10.00 --fee-type THB'.split(' '),
  )
  return [
    fields([
      ['sandbox', `listening at ${summary.base_url}`],
      ['merchant', `${merchant.appid} (all channels; THB MYR JPY AED)`],
      ['data dir', summary.data_dir],
      ['profile', profile],
      ['note', kept],
      ['faults', faults ?? 'none (change them with gw sandbox faults --set)'],
      [
        'checks',
        summary.strict
          ? 'strict: as the API document says'
          : 'as the gateway: what its published SDKs send is accepted, each departure from the API document shown as a warning (--strict refuses them)',
      ],
    ]),
    `Try: ${tryIt}   (Ctrl-C stops the sandbox)`,
  ].join('\n')
}

/** What `gw sandbox seed` made and wrote. */
export interface SeedResult {
  orders: number
  paid: number
  refunded: number
  export_file: string
  refunds_file: string
  /** The differences planted in the export, by its line, for reconcile to find. */
  planted: {line: number; mch_order_no: string; difference: string}[]
}

/** What `gw sandbox seed` made and wrote, and the commands that use it. */
export function seedView(result: SeedResult, profile: SuggestedFor): string {
  const planted = result.planted.map((p) => `    line ${p.line}: ${p.mch_order_no} (${p.difference})`)
  return [
    `${plural(result.orders, 'order')} made in the sandbox of profile "${profile.name}": ${result.paid} paid, ${result.refunded} of them partly refunded.`,
    `Wrote ${result.export_file}, a merchant export with ${plural(result.planted.length, 'planted difference')}:`,
    ...planted,
    `and ${result.refunds_file}, refunds still to make.`,
    'Next:',
    `  ${gwCommand(profile, 'reconcile', result.export_file)}`,
    `  ${gwCommand(profile, 'refund', 'create', '--from-csv', result.refunds_file, '--dry-run')}`,
    `  ${gwCommand(profile, 'order', 'list', '--since', 'today')}`,
  ].join('\n')
}
