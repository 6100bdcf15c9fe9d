import {Args, Command, Flags} from '@oclif/core'

import GwHelp from '../lib/cli/help.js'

/**
 * `gw help [COMMAND]`: the help of a topic or command, as --help shows it. gw's own (the same
 * few lines as @oclif/plugin-help's) so that the bundled build has one copy of oclif.
 */
export default class Help extends Command {
  static override summary = 'show the help of gw, a topic or a command'
  static override examples = [
    '<%= config.bin %> help refund create',
    '<%= config.bin %> help order',
    '<%= config.bin %> help --all > gw-reference.txt',
  ]
  static override args = {command: Args.string({ignoreStdin: true, description: 'a topic or command', required: false})}
  static override flags = {
    'nested-commands': Flags.boolean({char: 'n', description: 'list the commands of every topic'}),
    all: Flags.boolean({description: 'the help of every command, one after another: the full reference, offline'}),
  }
  static override strict = false
  static override enableJsonFlag = true

  /** With --json: the commands (of the topic or command asked about) with their summaries, for scripts. */
  async run(): Promise<{commands: {command: string; summary?: string}[]} | void> {
    const {argv, flags} = await this.parse(Help)
    const words = (argv as string[]).filter((word) => word !== '--json')
    if (this.jsonEnabled()) {
      const prefix = words.join(':')
      const commands = this.config.commands
        .filter((c) => !c.hidden && (!prefix || c.id === prefix || c.id.startsWith(`${prefix}:`)))
        .map((c) => ({command: c.id.split(':').join(' '), summary: c.summary}))
      return {commands}
    }
    const help = new GwHelp(this.config, {all: flags['nested-commands']})
    await (flags.all ? help.showReference() : help.showHelp(words))
  }
}
