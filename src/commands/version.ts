import {Flags} from '@oclif/core'

import {GwCommand} from '../lib/cli/base-command.js'
import {type Build, compareBuilds, publishedBuild, runningBuild} from './version.run.js'
import {endpointOf, networkFlags} from '../lib/cli/flags.js'
import {usageError} from '../lib/errors.js'

export default class Version extends GwCommand<typeof Version> {
  static override summary = 'which build of gw this is, and with --check whether a newer one is out'
  static override description =
    'The build: its version, the date of its commit and the commit, the system and the Node inside (gw --version says the same on one line). With --check, asks the address where the builds are handed out for its build.json (npm run build:binary -- --all writes it beside the executables), once, and says whether that build is newer (a later version, else a later commit: its day, then its time). Nothing else in gw asks about builds: no command checks by itself.'
  static override examples = [
    '<%= config.bin %> version',
    '<%= config.bin %> version --check https://intranet.example/gw/build.json',
  ]

  static override flags = {
    check: Flags.string({description: 'the address of the newest build.json, to compare this build with'}),
    timeout: networkFlags.timeout,
  }

  async run(): Promise<{build: Build; platform: string; node: string; newest?: Build; newer?: boolean}> {
    const build = runningBuild(this.config.version)
    if (!build) throw usageError(`This gw was built without a build's name (${this.config.version}).`)
    const platform = `${this.config.platform}-${this.config.arch}`
    const node = process.version
    this.log(
      `gw ${build.id}: version ${build.version}, built from commit ${build.commit} of ${build.date}${build.dirty ? ' with changes not committed' : ''} (${platform}, node ${node})`,
    )
    if (!this.flags.check) return {build, platform, node}
    const url = endpointOf('--check', this.flags.check)
    const newest = await publishedBuild(url, this.flags.timeout * 1000)
    const how = compareBuilds(newest, build)
    this.log(
      {
        newer: `A newer build is out: ${newest.id} (commit ${newest.commit} of ${newest.date}${newest.committed_at ? `, ${newest.committed_at}` : ''}). Get it where you got gw, and check it against its SHA256SUMS.`,
        same: `This is the newest build (${url.href} names it).`,
        'not newer': `${url.href} names ${newest.id}, which is not newer than this build.`,
        'not known': `${url.href} names ${newest.id}, of the same version and day as this build, without the time of its commit: which is newer is not known. Ask whoever hands gw out, or compare commit ${newest.commit} with ${build.commit} in gw's history.`,
      }[how],
    )
    return {build, platform, node, newest, ...(how === 'not known' ? {} : {newer: how === 'newer'})}
  }
}
