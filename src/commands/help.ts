import {Args, Command, Flags} from '@oclif/core'

import {GUIDES, guideFile, guideText, isGuide} from '../lib/cli/guides.js'
import GwHelp from '../lib/cli/help.js'
import {sayNotFound} from '../lib/cli/not-found.js'

/**
 * `gw help [COMMAND]`: the help of a topic or command, as --help shows it, or a guide of docs/
 * (`gw help finance`), offline. gw's own (the same few lines as @oclif/plugin-help's) so that
 * the bundled build has one copy of oclif.
 */
export default class Help extends Command {
  static override summary = 'show the help of gw, a topic or a command'
  static override examples = [
    '<%= config.bin %> help refund create',
    '<%= config.bin %> help order',
    '<%= config.bin %> help finance | less',
    '<%= config.bin %> help --all > gw-reference.txt',
  ]
  static override args = {
    command: Args.string({
      ignoreStdin: true,
      description: `a topic, a command or a guide: ${Object.keys(GUIDES).join(', ')}`,
      required: false,
    }),
  }
  static override flags = {
    'nested-commands': Flags.boolean({char: 'n', description: 'list the commands of every topic'}),
    all: Flags.boolean({description: 'the help of every command, one after another: the full reference, offline'}),
  }
  static override strict = false
  static override enableJsonFlag = true

  /** With --json: the commands (of the topic or command asked about) with their summaries, or the guide and its file, for scripts. */
  async run(): Promise<
    {commands: {command: string; summary?: string}[]} | {guide: string; file: string; text: string} | void
  > {
    const {argv, flags} = await this.parse(Help)
    const words = (argv as string[]).filter((word) => word !== '--json')
    // A guide is a page: words after its name are ignored, as help ignores them after a command's.
    if (words[0] !== undefined && isGuide(words[0])) {
      const text = guideText(this.config.root, words[0])
      if (this.jsonEnabled()) return {guide: words[0], file: guideFile(this.config.root, words[0]), text}
      this.log(text.trimEnd())
      return
    }
    const known = [
      ...this.config.commands.filter((c) => !c.hidden).map((c) => c.id),
      ...this.config.topics.map((t) => t.name),
    ]
    if (words.length > 0 && !known.some((id) => id === words[0] || id.startsWith(`${words[0]}:`))) {
      sayNotFound(
        argv as string[],
        [...known, ...Object.keys(GUIDES)],
        this.config.bin,
        'command, topic or guide',
        'help ',
      )
      this.exit(2)
    }
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
