import {Args} from '@oclif/core'

import {GwCommand} from '../../lib/cli/base-command.js'

export default class ProfileRemove extends GwCommand<typeof ProfileRemove> {
  static override summary = 'remove a profile and its copied key files'
  static override examples = ['<%= config.bin %> profile remove old-shop']
  static override args = {name: Args.string({ignoreStdin: true, description: 'profile name', required: true})}

  async run(): Promise<{removed: string; default: string | null}> {
    this.store.remove(this.args.name)
    const defaultName = this.store.defaultName() ?? null
    this.log(
      `Removed profile "${this.args.name}".${defaultName ? '' : ' There is no default profile now: gw profile use NAME.'}`,
    )
    return {removed: this.args.name, default: defaultName}
  }
}
