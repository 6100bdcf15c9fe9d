/**
 * The flags of the commands that read a file of rows (refund create --from-csv, reconcile): how to
 * read it, how fast to ask the gateway about its rows, what its status words mean.
 */
import {Flags} from '@oclif/core'

/** Pacing of batch work (bulk refunds, reconcile): how many requests in flight, how many started per second. */
export const batchFlags = (what: string, concurrency: number, helpGroup?: string) => ({
  concurrency: Flags.integer({
    description: `${what} in flight at once`,
    default: concurrency,
    min: 1,
    max: 64,
    helpGroup,
  }),
  rate: Flags.integer({description: `${what} started per second at most`, min: 1, helpGroup}),
})

/** How to read an input file (CSV or .xlsx, told by its content) and write a CSV output. */
export const fileFlags = (group: {helpGroup?: string; dependsOn?: string[]} = {}) => ({
  column: Flags.string({
    description: 'the column that holds a field, as FIELD=HEADER; repeat for each field',
    multiple: true,
    multipleNonGreedy: true,
    ...group,
  }),
  sheet: Flags.string({
    description: 'the sheet of an .xlsx or .ods workbook to read (default: the first visible one)',
    ...group,
  }),
  'header-row': Flags.integer({
    description: 'the line (row number) of the header; rows above it are titles (default: found among the first 20)',
    min: 1,
    ...group,
  }),
  encoding: Flags.string({
    description: 'encoding of a CSV without a BOM (default: utf-8), e.g. windows-874 for Thai files',
    ...group,
  }),
  delimiter: Flags.string({
    description: 'separator of a CSV: , ; tab or | (default: told by the header line)',
    ...group,
  }),
  'decimal-mark': Flags.option({
    description:
      "the decimal mark of the file's amounts written as text, when none of them shows it (1,500 and 1.500 read two ways): point or comma (default: told by the amounts that read one way, 1,234.50 or 12,34)",
    options: ['point', 'comma'] as const,
    ...group,
  })(),
  bom: Flags.boolean({
    description: 'start a CSV output with a BOM, so spreadsheets read it as UTF-8 (the default; --no-bom to omit)',
    allowNo: true,
    ...group,
  }),
})

/** --status-map: what the words of a file's status column mean (reconcile, and a refund file's sale status). */
export const statusMapFlag = (group: {helpGroup?: string; dependsOn?: string[]} = {}) =>
  Flags.string({
    description:
      'what a status of your file means, as YOURS=WORD (WORD: paid, unpaid, refunded, refunded_partly, closed, cancelled, a gateway state, or for a refund file approved, rejected, pending); repeat for each',
    multiple: true,
    multipleNonGreedy: true,
    ...group,
  })

const bulk = {helpGroup: 'BULK', dependsOn: ['from-csv']}

/** The flags of `refund create --from-csv`. */
export const bulkRefundFlags = {
  'from-csv': Flags.string({
    description: 'refund every row of this file (CSV or .xlsx; --file is the same flag)',
    // The flag takes workbooks too: --file says so.
    aliases: ['file'],
    helpGroup: 'BULK',
    exclusive: ['amount', 'refund-fee', 'mch-refund-no', 'gw-order-no', 'channel-order-no'],
  }),
  'dry-run': Flags.boolean({description: 'check the file and the orders, show the plan, send nothing', ...bulk}),
  preview: Flags.string({
    description:
      'with --dry-run: write FILE.html, the sheet as gw read it (cells as shown, the amounts it would send marked, rows not sent struck with why, what the sheet hides listed), to open in a browser',
    helpGroup: 'BULK',
    dependsOn: ['dry-run'],
  }),
  'skip-invalid': Flags.boolean({description: 'send the valid rows and report the others as skipped_invalid', ...bulk}),
  'allow-repeats': Flags.boolean({
    description: 'refund rows that repeat the same order and amount, each once',
    ...bulk,
  }),
  'only-visible': Flags.boolean({
    description:
      'refund only the rows the sheet shows: rows hidden, filtered out, collapsed or struck through are left out, and reported so (default: any such row stops the run)',
    exclusive: ['include-hidden'],
    ...bulk,
  }),
  'include-hidden': Flags.boolean({
    description: 'refund the rows the sheet hides, filters out or strikes through as well as the rows it shows',
    exclusive: ['only-visible'],
    ...bulk,
  }),
  'status-map': statusMapFlag(bulk),
  where: Flags.string({
    description:
      "refund only the rows whose column holds one of these values, as COLUMN=VALUE[,VALUE] (--where 'Status=Approved'); repeat for more columns. The others are left out and reported",
    multiple: true,
    multipleNonGreedy: true,
    ...bulk,
  }),
  'batch-id': Flags.string({
    description: 'a name for an intentional second round of refunds identical to an earlier file',
    ...bulk,
  }),
  'retry-failed': Flags.boolean({
    description:
      "given gw's own report back: send its rows that failed or were not sent (a report run again otherwise re-checks and sends none of them)",
    ...bulk,
  }),
  out: Flags.string({
    description:
      'report file, .csv or .xlsx (default: beside the file, NAME.report.csv or .xlsx; NAME.dry-run.* for --dry-run)',
    ...bulk,
  }),
  journal: Flags.string({description: 'journal file (default: beside the CSV, NAME.journal.jsonl)', ...bulk}),
  ...batchFlags('refunds', 4, 'BULK'),
  ...fileFlags(bulk),
}
