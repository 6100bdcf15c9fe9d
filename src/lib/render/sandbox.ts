/** What `gw sandbox start` shows once it listens. */
import type {SandboxInfo} from '../../sandbox/server.js'
import {fields} from './fields.js'
import type {SeedResult} from '../seed.js'
import {plural} from './words.js'

interface SandboxSummary extends SandboxInfo {
  data_dir: string
  profile: string | null
  default_profile: string | null
}

export function sandboxView(summary: SandboxSummary, faults: string | undefined): string {
  const merchant = summary.merchants[0]!
  const isDefault = summary.default_profile === 'sandbox'
  const profile = summary.profile
    ? `"sandbox"${isDefault ? ' (default)' : ' (not the default; use --profile sandbox or gw profile use sandbox)'}`
    : 'none (--no-profile)'
  return [
    fields([
      ['sandbox', `listening at ${summary.base_url}`],
      ['merchant', `${merchant.appid} (all channels; THB MYR JPY AED)`],
      ['data dir', summary.data_dir],
      ['profile', profile],
      ['faults', faults ?? 'none'],
    ]),
    'Try: gw order create --channel wechat --amount 10.00 --fee-type THB   (Ctrl-C stops the sandbox)',
  ].join('\n')
}

/** What `gw sandbox seed` made and wrote, and the commands that use it. */
export function seedView(result: SeedResult, profile: string): string {
  const planted = result.planted.map((p) => `    line ${p.line}: ${p.mch_order_no} (${p.difference})`)
  return [
    `${plural(result.orders, 'order')} made in the sandbox of profile "${profile}": ${result.paid} paid, ${result.refunded} of them partly refunded.`,
    `Wrote ${result.export_file}, a merchant export with ${plural(result.planted.length, 'planted difference')}:`,
    ...planted,
    `and ${result.refunds_file}, refunds still to make.`,
    'Next:',
    `  gw reconcile ${result.export_file}`,
    `  gw refund create --from-csv ${result.refunds_file} --dry-run`,
    '  gw order list --since today',
  ].join('\n')
}
