/**
 * gw refund create --from-csv's run: the heap tuned to the file, the plan checked with progress,
 * its notes said, confirmed, then sent with progress; the view of its end and its --json
 * document, with the command that resumes it.
 */
import {OUTCOME} from '../../lib/errors.js'
import type {Profile} from '../../lib/profiles/store.js'
import type {BulkOptions} from '../../lib/refunds/bulk/bulk-refund.js'
import type {RefundService} from '../../lib/refunds/service.js'
import type {Asking, Showing} from '../../lib/cli/command-ports.js'
import {fieldsOf} from '../../lib/cli/flags.js'
import {formOf} from '../../lib/io/streams.js'

const CONFIRM_BULK = {always: true, otherwise: 'or --dry-run to see the plan'}

/** What the run needs of the command running it. */
interface BulkCommand extends Asking, Pick<Showing, 'note' | 'io'> {
  profile: Profile
  refunds: RefundService
  /** gw's version, for the report's audit trail. */
  version: string
  /** The command as given, every flag kept, with --yes: the resume command. */
  again: string
}

/** The command's flags: the bulk run's options, as flags name them. */
type BulkFlags = Omit<
  BulkOptions,
  'csv' | 'gw_version' | 'dry_run' | 'skip_invalid' | 'allow_repeats' | 'retry_failed' | 'batch_id'
> & {
  'dry-run': boolean
  'skip-invalid': boolean
  'allow-repeats': boolean
  'retry-failed': boolean
  'batch-id'?: string
}

export async function runBulk(csv: string, flags: BulkFlags, command: BulkCommand) {
  const {runBulkRefund, tuneHeapFor} = await import('../../lib/refunds/bulk/bulk-refund.js')
  tuneHeapFor(csv)
  const {STOPPING, CHECKS_STOPPING, bulkResultView, confirmText, planNotes, resumeCommand} =
    await import('../../lib/render/bulk.js')
  const {profile} = command
  const named = fieldsOf(flags, ['dry-run', 'skip-invalid', 'allow-repeats', 'retry-failed', 'batch-id'])
  const options = {...flags, ...named, csv, gw_version: command.version}
  const result = await runBulkRefund(command.refunds, options, {
    checking: (label, total) => command.longWork(label, total, CHECKS_STOPPING, 'with a problem'),
    planned: (plan, left, output) => planNotes(plan, csv, left, output).forEach((note) => command.note(note)),
    confirm: (planned) => {
      const {plan, action} = confirmText(planned, profile, formOf(command.io.stderr))
      return command.confirm(action, {...CONFIRM_BULK, before: plan})
    },
    // Rows not refunded are counted apart, whatever they ended as (failed, unknown, processing): the summary says which.
    sending: (total) => command.longWork('refunds', total, STOPPING, 'not refunded'),
  })
  const view = bulkResultView(result, profile, command.again, formOf(command.io.stdout))
  const resume_command = resumeCommand(result, command.again) ?? null
  const {appid, live} = profile
  const document = {...result, profile: profile.name, appid, live, resume_command, [OUTCOME]: result.outcome}
  return {view, document}
}
