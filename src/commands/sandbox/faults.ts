import {Flags} from '@oclif/core'

import {GwCommand} from '../../lib/cli/base-command.js'
import {usageError} from '../../lib/errors.js'

export default class SandboxFaults extends GwCommand<typeof SandboxFaults> {
  static override summary = "show, set or clear the running sandbox's faults"
  static override description =
    'Faults make the sandbox fail as a gateway can, to test a client: drop-after-commit (the operation is applied, the connection closed unanswered), http-500, code-nonzero, notsure, bad-signature, refund-processing (each a rate from 0 to 1), and latency=MIN-MAXms. KIND=VALUE@OPERATION limits one to an operation (native_pay, order_query, order_refund, refund_query, order_close; or create, query, refund, close). --set replaces the faults set (as gw sandbox start --faults does), --clear removes them; without either, shows them.'
  static override examples = [
    '<%= config.bin %> sandbox faults',
    '<%= config.bin %> sandbox faults --set drop-after-commit=0.1,latency=50-150ms@refund',
    '<%= config.bin %> sandbox faults --clear',
  ]
  static override flags = {
    set: Flags.string({description: 'the faults to set, replacing those set now', exclusive: ['clear']}),
    clear: Flags.boolean({description: 'remove every fault', exclusive: ['set']}),
  }

  async run(): Promise<{faults: string}> {
    const {flags, profile} = this
    if (flags.set !== undefined && !flags.set.trim())
      throw usageError('--set needs faults, like drop-after-commit=0.1; --clear removes them.')
    const {sandboxOf} = await import('./control.run.js')
    const sandbox = await sandboxOf(profile)
    const spec = flags.clear ? '' : flags.set
    const faults = await sandbox(async (control) => {
      if (spec === undefined) return control.currentFaults()
      // The sandbox checks the spec; its reason is the flag's problem, nothing was changed.
      return control.faults(spec).catch((error: Error) => {
        throw usageError(
          `--set: ${error.message}.`,
          'Nothing was changed; see the faults with gw sandbox faults --help.',
        )
      })
    })
    this.log(faults ? `faults: ${faults}` : 'faults: none')
    return {faults}
  }
}
