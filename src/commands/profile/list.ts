import {GwCommand} from '../../lib/cli/base-command.js'
import {table} from '../../lib/render/table.js'

interface ListedProfile {
  name: string
  default: boolean
  appid: string
  base_url: string
  live: boolean
}

export default class ProfileList extends GwCommand<typeof ProfileList> {
  static override summary = 'list the stored profiles'
  static override examples = ['<%= config.bin %> profile list', '<%= config.bin %> profile list --json']

  async run(): Promise<{profiles: ListedProfile[]}> {
    const defaultName = this.store.defaultName()
    const profiles = this.store.names().map((name) => {
      const stored = this.store.stored(name)!
      return {name, default: name === defaultName, appid: stored.appid, base_url: stored.base_url, live: stored.live}
    })
    if (profiles.length === 0) {
      this.log('No profiles yet. Start the sandbox (gw sandbox start) or add one (gw profile add --help).')
    } else {
      this.log(
        table(
          ['', 'name', 'appid', 'base URL', 'mode'],
          profiles.map((p) => [p.default ? '*' : '', p.name, p.appid, p.base_url, p.live ? 'LIVE' : 'test']),
        ),
      )
    }
    return {profiles}
  }
}
