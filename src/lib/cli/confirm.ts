/**
 * Asking before money moves. On a --live profile every money-moving command asks; a bulk
 * refund always asks. A terminal gets a question; without one, --yes is required.
 */
import {usageError} from '../errors.js'

export interface ConfirmOptions {
  profile: {name: string; appid: string; live: boolean}
  /** The flag that answers for the user (--yes, or --again) was given. */
  yes: boolean
  /** That flag's name, for the message without a terminal; --yes when not said. */
  flag?: string
  /** Ask even on a test profile (bulk refunds). */
  always?: boolean
  /** Said after "Add --yes to confirm" when there is no terminal, e.g. another way to look first. */
  otherwise?: string
}

export async function confirm(action: string, options: ConfirmOptions): Promise<void> {
  const {profile, yes} = options
  if (yes || (!profile.live && !options.always)) return
  if (!process.stdin.isTTY || !process.stderr.isTTY) {
    const what = profile.live
      ? `Profile "${profile.name}" is live and this would ${action}.`
      : `Not confirmed: this would ${action}.`
    const otherwise = options.otherwise ? `, ${options.otherwise}` : ''
    throw usageError(what, `Add ${options.flag ?? '--yes'} to confirm (no terminal to ask on)${otherwise}.`)
  }
  const {confirm: ask} = await import('@inquirer/prompts')
  const message = `${profile.live ? 'LIVE: ' : ''}${action} (profile "${profile.name}", ${profile.appid})?`
  const ok = await ask({message, default: false}, {output: process.stderr})
  if (!ok) throw usageError('Cancelled; nothing was sent.')
}
