import {Args} from '@oclif/core'

import {GwCommand} from '../../lib/cli/base-command.js'

export default class ProfileUse extends GwCommand<typeof ProfileUse> {
  static override summary = 'make a profile the default'
  static override examples = ['<%= config.bin %> profile use shop']
  static override args = {name: Args.string({ignoreStdin: true, description: 'profile name', required: true})}

  async run(): Promise<{default: string}> {
    this.store.use(this.args.name)
    this.log(`"${this.args.name}" is now the default profile.`)
    return {default: this.args.name}
  }
}
