import {Args, Flags} from '@oclif/core'

import {GwCommand} from '../lib/cli/base-command.js'
import {SHELLS, candidates, completionScript} from './completion.run.js'
import {GUIDES} from '../lib/cli/guides.js'
import {usageError} from '../lib/errors.js'

export default class Completion extends GwCommand<typeof Completion> {
  static override summary = 'shell completion for bash, zsh, fish or PowerShell: commands, flags, and their values'
  static override description =
    'Prints a script that hands completion to gw itself, so it completes commands and flags, and also the values of flags: channels, currencies, states, and the names of your profiles. Add it to your shell once (see the examples).'
  static override examples = [
    "echo 'source <(<%= config.bin %> completion bash)' >> ~/.bashrc",
    "echo 'source <(<%= config.bin %> completion zsh)' >> ~/.zshrc",
    "echo '<%= config.bin %> completion fish | source' >> ~/.config/fish/config.fish",
    "Add-Content $PROFILE '<%= config.bin %> completion powershell | Out-String | Invoke-Expression'",
  ]

  static override args = {shell: Args.string({ignoreStdin: true, description: SHELLS.join(', ')})}
  static override flags = {
    words: Flags.boolean({hidden: true, description: 'answer a completion: the words after gw'}),
    'empty-word': Flags.boolean({hidden: true, description: 'with --words: the word under the cursor is empty'}),
  }
  static override strict = false

  async run(): Promise<void> {
    if (this.flags.words) {
      const words = this.argv.slice(this.argv.indexOf('--') + 1)
      if (this.flags['empty-word']) words.push('')
      const profiles = () => this.store.names()
      this.log(candidates(words, this.config.commands as never, profiles, Object.keys(GUIDES)).join('\n'))
      return
    }
    const shell = SHELLS.find((name) => name === this.args.shell?.toLowerCase())
    if (!shell)
      throw usageError(
        this.args.shell
          ? `gw has no completion for ${this.args.shell}: it writes one for ${SHELLS.join(', ')}.`
          : `Name the shell: ${SHELLS.join(', ')}.`,
        `For example: gw completion ${SHELLS[0]}`,
      )
    this.log(completionScript(shell, this.config.bin))
  }
}
