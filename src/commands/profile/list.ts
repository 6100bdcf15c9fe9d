import {Flags} from '@oclif/core'

import {GwCommand} from '../../lib/cli/base-command.js'
import {formOf} from '../../lib/io/streams.js'
import {listed} from '../../lib/render/table.js'
import {listCount, noneListed} from '../../lib/render/words.js'

interface ListedProfile {
  name: string
  default: boolean
  appid: string
  base_url: string
  live: boolean
}

export default class ProfileList extends GwCommand<typeof ProfileList> {
  static override summary = 'list the stored profiles'
  static override description =
    'The default profile is marked *. On a terminal a table; piped, one tab-separated line per profile (marker, name, appid, base URL, mode), as every list of gw.'
  static override examples = [
    '<%= config.bin %> profile list',
    '<%= config.bin %> profile list --json',
    '<%= config.bin %> profile list | cut -f2',
  ]

  static override flags = {
    limit: Flags.integer({description: 'at most this many, by name: on the screen and in --json alike', min: 1}),
  }

  async run(): Promise<{profiles: ListedProfile[]}> {
    const defaultName = this.store.defaultName()
    const names = this.store.names()
    const profiles = names.slice(0, this.flags.limit).map((name) => {
      const stored = this.store.stored(name)!
      return {name, default: name === defaultName, appid: stored.appid, base_url: stored.base_url, live: stored.live}
    })
    const form = formOf(this.io.stdout)
    const limit = this.flags.limit
    this.present(
      profiles.length === 0
        ? noneListed('No profiles yet. Start the sandbox (gw sandbox start) or add one (gw profile add --help).', form)
        : listed(
            ['', 'name', 'appid', 'base URL', 'mode'],
            profiles.map((p) => [p.default ? '*' : '', p.name, p.appid, p.base_url, p.live ? 'LIVE' : 'test']),
            {},
            form,
            [
              listCount(
                profiles.length,
                'profile',
                {total: names.length, inFile: false, firstAre: 'first', ...(limit ? {limit} : {})},
                form,
              ),
            ],
          ),
    )
    return {profiles}
  }
}
