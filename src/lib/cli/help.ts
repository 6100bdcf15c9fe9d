/**
 * `gw help` lists topics and commands in the order a merchant meets them, not alphabetically:
 * set up a profile, take orders, refund (on the desk too), watch notifications, reconcile; then the tools; then
 * the guides, by reader.
 */
import {Help} from '@oclif/core'

import {GUIDES} from './guides.js'

const ORDER = [
  'profile',
  'order',
  'refund',
  'desk',
  'notify',
  'reconcile',
  'sandbox',
  'history',
  'doctor',
  'signature',
  'completion',
  'version',
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

  /** gw's help, then its guides: each a page of docs/ that `gw help GUIDE` prints, offline. */
  protected override async showRootHelp(): Promise<void> {
    await super.showRootHelp()
    const guides = Object.entries(GUIDES).map(([name, about]) => [name, about])
    const body = this.renderList(guides, {indentation: 2, spacer: '\n', stripAnsi: this.opts.stripAnsi})
    this.log(this.section(`GUIDES (${this.config.bin} help GUIDE)`, body))
    this.log('')
  }

  /**
   * The full reference, offline (`gw help --all`): gw's help, then every command's as its --help
   * shows it, one after another. The same text as docs/commands.md, in every installed form:
   * Windows has no man.
   */
  async showReference(): Promise<void> {
    await this.showRootHelp()
    for (const command of this.sortedCommands.filter((c) => !c.hidden)) {
      this.log(`${'='.repeat(80)}\n${this.config.bin} ${command.id.replaceAll(':', ' ')}\n`)
      await this.showCommandHelp(command)
    }
  }
}
