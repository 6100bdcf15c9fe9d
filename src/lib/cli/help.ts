/**
 * `gw help` lists topics and commands in the order a merchant meets them, not alphabetically:
 * set up a profile, take orders, refund, watch notifications, reconcile; then the tools.
 */
import {Help} from '@oclif/core'

const ORDER = [
  'profile',
  'order',
  'refund',
  'notify',
  'reconcile',
  'sandbox',
  'history',
  'doctor',
  'signature',
  'completion',
  'help',
]

const rank = (id: string) => {
  const at = ORDER.indexOf(id.split(/[: ]/)[0]!)
  return at === -1 ? ORDER.length : at
}

export default class GwHelp extends Help {
  protected override get sortedTopics() {
    return [...super.sortedTopics].sort((a, b) => rank(a.name) - rank(b.name) || a.name.localeCompare(b.name))
  }

  protected override get sortedCommands() {
    return [...super.sortedCommands].sort((a, b) => rank(a.id) - rank(b.id) || a.id.localeCompare(b.id))
  }
}
