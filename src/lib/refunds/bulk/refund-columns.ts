/**
 * The columns of a refund file: the fields gw reads and the headers it finds them under, and what
 * is wrong with the header before any row is read (no order or amount column, a column the sheet
 * hides, a currency or a scale the gateway does not take).
 */
import {ORDER_NUMBER_FIELDS} from '../../gateway/protocol/index.js'
import {
  type TableHeader,
  type TableSource,
  amountHeaders,
  missingOrderColumn,
  unseenProblems,
} from '../../files/table.js'
import type {Problem} from './rows.js'
import {WORD_FIELDS} from './rows-taken.js'

/** The fields a refund file gives. */
export const FIELDS = [
  ...ORDER_NUMBER_FIELDS,
  'refund_fee',
  'refund_amount',
  'fee_type',
  'channel',
  'total_fee',
  'mch_refund_no',
  'attach',
  ...WORD_FIELDS,
]

/** The headers a sale's status is found under without --column (any case): the file's own words of the sale. */
export const STATUS_HEADERS = [
  'status',
  'state',
  'order status',
  'payment status',
  'transaction status',
  'sale status',
  'สถานะ',
  '状态',
  '狀態',
  'ステータス',
  'الحالة',
  'estado',
  'statut',
]

/** The headers an approval column is found under without --column: finance's sign-off of each refund. */
export const APPROVAL_HEADERS = [
  'approval',
  'approved',
  'approved?',
  'approval status',
  'refund approved',
  'อนุมัติ',
  'การอนุมัติ',
  '审批',
  '批准',
  '承認',
  'الموافقة',
]

export const AMOUNT_FIELDS = ['refund_amount', 'refund_fee']

/** Fields of which one is enough: the order numbers, the amounts. */
export const ANY_OF = [[...ORDER_NUMBER_FIELDS], ['refund_fee', 'refund_amount']]

/** Problems of the header that make every row unreadable, or would read what the sheet does not show. */
export function headerProblems(header: TableHeader, source: TableSource, hints: string[]): Problem[] {
  const line = header.line ?? 1
  const problems: Problem[] = unseenProblems({header, source}, FIELDS, ANY_OF).map((message) => ({line, message}))
  const unseen = (fields: readonly string[]) => header.unseen.some((u) => fields.includes(u.field))
  const noOrderColumn = missingOrderColumn({header, source}, FIELDS)
  if (noOrderColumn && !unseen(ORDER_NUMBER_FIELDS)) problems.push({line, message: noOrderColumn})
  for (const message of amountHeaders({header, source}, AMOUNT_FIELDS).problems) problems.push({line, message})
  if (!header.index.has('refund_fee') && !header.index.has('refund_amount') && !unseen(AMOUNT_FIELDS)) {
    const hint = hints.find((h) => h.includes('refund_amount'))
    problems.push({
      line,
      message: `no amount column: the header needs refund_fee (minor units, e.g. 5000) or refund_amount (decimal, e.g. 50.00); name yours with ${hint ? hint.slice(hint.indexOf('--column')) : '--column refund_amount="Your header"'}`,
    })
  }
  return problems
}
