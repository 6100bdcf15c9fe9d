import {Args, Flags} from '@oclif/core'

import {GwCommand} from '../lib/cli/base-command.js'
import {usageError} from '../lib/errors.js'

export default class Completion extends GwCommand<typeof Completion> {
  static override summary = 'shell completion for bash or zsh: commands, flags, and their values'
  static override description =
    'Prints a script that hands completion to gw itself, so it completes commands and flags, and also the values of flags: channels, currencies, states, and the names of your profiles. Add it to your shell once (see the examples).'
  static override examples = [
    "echo 'source <(<%= config.bin %> completion bash)' >> ~/.bashrc",
    "echo 'source <(<%= config.bin %> completion zsh)' >> ~/.zshrc",
  ]

  static override args = {shell: Args.string({ignoreStdin: true, description: 'bash or zsh'})}
  static override flags = {words: Flags.boolean({hidden: true, description: 'answer a completion: the words after gw'})}
  static override strict = false

  async run(): Promise<void> {
    const {candidates, completionScript} = await import('../lib/cli/completion.js')
    if (this.flags.words) {
      const words = this.argv.slice(this.argv.indexOf('--') + 1)
      const profiles = () => this.store.names()
      this.log(candidates(words, this.config.commands as never, profiles).join('\n'))
      return
    }
    const shell = this.args.shell
    if (shell !== 'bash' && shell !== 'zsh')
      throw usageError('Name the shell: gw completion bash, or gw completion zsh.')
    this.log(completionScript(shell, this.config.bin))
  }
}
