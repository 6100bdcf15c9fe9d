import {GwCommand} from '../lib/cli/base-command.js'
import {type Ended, OUTCOME} from '../lib/errors.js'
import {networkFlags} from '../lib/cli/flags.js'
import {type DoctorReport, runDoctor} from '../lib/profiles/doctor.js'
import {doctorView} from '../lib/render/doctor.js'

export default class Doctor extends GwCommand<typeof Doctor> {
  static override summary = 'check a profile against the gateway: keys, clock, reachability, signatures'
  static override description =
    'Sends one signed order query for an order number that cannot exist. GW_INVALID_ORDER_NO means appid and signature are accepted; a verified answer means the gateway key is right. Exit 0 only when every check passes.'
  static override examples = ['<%= config.bin %> doctor', '<%= config.bin %> doctor --profile shop --json']
  static override flags = {...networkFlags}

  async run(): Promise<DoctorReport & Ended> {
    const report = await runDoctor(() => this.unlockedProfile(), this.flags.timeout * 1000, await this.wireTrace())
    this.log(doctorView(report))
    return {...report, [OUTCOME]: report.outcome}
  }
}
