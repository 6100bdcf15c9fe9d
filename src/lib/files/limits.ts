/** The largest field gw reads, from a CSV or a workbook: a larger one is not a cell of an export. */
import {usageError} from '../errors.js'

export const MAX_FIELD = 64 * 1024

/** The error for a field past MAX_FIELD, naming its line and position. */
export const fieldTooLong = (path: string, line: number, field: number, length: number) =>
  usageError(
    `${path} line ${line}: field ${field} is ${length} characters long; at most ${MAX_FIELD} are read.`,
    'A cell that large is not part of an export: check the file.',
  )
