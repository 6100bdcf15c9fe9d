/** What `gw sandbox start` shows once it listens. */
import type {SandboxInfo} from '../../sandbox/server.js'
import {fields} from './fields.js'

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
