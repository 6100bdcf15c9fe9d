/**
 * What a command's run (refund create's bulk run beside it, the listener's recording, a list's
 * output) takes of the command that starts it: how it shows things and how it asks. GwCommand
 * gives both (its showing and asking); a run never imports the command itself.
 */
import type {Work} from '../batch.js'
import type {CommandIO} from '../io/streams.js'
import type {ConfirmOptions} from './confirm.js'

/** How a run shows things (GwCommand's showing). */
export interface Showing {
  io: CommandIO
  /** stdout is the --json document. */
  json: boolean
  /** A line on stdout. */
  log(line: string): void
  note(message: string): void
  warn(message: string): void
}

/** How a run asks before money moves and shows long work (GwCommand's asking). */
export interface Asking {
  confirm(action: string, options?: Omit<ConfirmOptions, 'profile' | 'yes' | 'flag'>): Promise<void>
  longWork(label: string, total: number | undefined, stopping: string, failedWord?: string): Promise<Work>
}
