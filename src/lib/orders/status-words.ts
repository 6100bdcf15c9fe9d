/**
 * The merchant's words for an order's state, as reconcile reads a status column: gw's own words
 * (paid, unpaid, refunded, refunded_partly, closed, cancelled), the words POS systems export
 * (Cancelled, Void, Refunded, Partially refunded, and their common Thai forms), the user's own
 * with --status-map, or a gateway state as it is. Each stands for the gateway states that agree
 * with it; a refunded order is told apart as partly or fully refunded by its refunded total.
 */
import {shellWord, usageError} from '../errors.js'
import {ORDER_STATES} from '../gateway/protocol/index.js'
import {quoted, shown} from '../untrusted.js'

/** What a word allows of an order the gateway shows refunded (REFUND): part of it, all of it, or either. */
type RefundedAs = 'partly' | 'fully' | 'either'

/** gw's words, and the gateway states each agrees with. */
const WORDS = {
  paid: {states: ['SUCCESS', 'REFUND'], refunded: 'partly'},
  unpaid: {states: ['NOTPAY', 'USERPAYING', 'PAYERROR']},
  refunded: {states: ['REFUND'], refunded: 'either'},
  refunded_partly: {states: ['REFUND'], refunded: 'partly'},
  closed: {states: ['CLOSED']},
  // A sale called off: no money kept, never paid or refunded in full.
  cancelled: {states: ['CLOSED', 'NOTPAY', 'PAYERROR', 'REFUND'], refunded: 'fully'},
} as const satisfies Record<string, {states: readonly string[]; refunded?: RefundedAs}>

export type StatusWord = keyof typeof WORDS

/** The other words files use for them: POS exports' English, and Thai as Thai POS systems write it. */
const SYNONYMS: Readonly<Record<string, StatusWord>> = {
  canceled: 'cancelled',
  void: 'cancelled',
  voided: 'cancelled',
  ยกเลิก: 'cancelled',
  ยกเลิกแล้ว: 'cancelled',
  // A payment that failed: never paid.
  failed: 'unpaid',
  payment_failed: 'unpaid',
  ล้มเหลว: 'unpaid',
  partially_refunded: 'refunded_partly',
  partly_refunded: 'refunded_partly',
  คืนเงินบางส่วน: 'refunded_partly',
  คืนเงิน: 'refunded',
  คืนเงินแล้ว: 'refunded',
  ชำระแล้ว: 'paid',
  ยังไม่ชำระ: 'unpaid',
  รอชำระ: 'unpaid',
}

/** gw's words that say a sale did not stand, as a refund file's row is refused for them. */
const DID_NOT_STAND: Partial<Record<StatusWord, string>> = {
  cancelled: 'cancelled',
  refunded: 'refunded',
  unpaid: 'not paid',
  closed: 'closed',
}

/**
 * Whether a row is approved to be refunded, in the words finance writes in a Status or Approval
 * column: approved, rejected, or waiting. Approval is not a payment state: a row is taken only
 * when its word says approved, or the user says which rows to take (--where, --status-map).
 */
type Approval = 'approved' | 'rejected' | 'pending'

const APPROVALS: Readonly<Record<Approval, readonly string[]>> = {
  approved: [
    'approved',
    'approve',
    'refund',
    'ja',
    'oui',
    'sí',
    'si',
    'yes',
    'y',
    'ok',
    'okay',
    'true',
    'done',
    'go',
    '✓',
    '✔',
    'อนุมัติ',
    'อนุมัติแล้ว',
    'ใช่',
    '已批准',
    '批准',
    '同意',
    '是',
    '承認',
    '承認済み',
    'はい',
    'موافق',
    'نعم',
    'تمت_الموافقة',
    'aprobado',
    'approuvé',
    'genehmigt',
  ],
  rejected: [
    'rejected',
    'reject',
    'declined',
    'decline',
    'denied',
    'refused',
    'no',
    'n',
    'false',
    '✗',
    '✘',
    'ไม่อนุมัติ',
    'ปฏิเสธ',
    'ไม่',
    'ไม่ใช่',
    '拒绝',
    '驳回',
    '否',
    '却下',
    'いいえ',
    'مرفوض',
    'لا',
    'rechazado',
    'refusé',
    'abgelehnt',
    'nein',
    '駁回',
    '拒絕',
    'do_not_refund',
    "don't_refund",
    'no_refund',
    'not_approved',
  ],
  pending: [
    'pending',
    'on_hold',
    'hold',
    'held',
    'waiting',
    'awaiting',
    'awaiting_approval',
    'in_review',
    'review',
    'tbd',
    '?',
    'รออนุมัติ',
    'รอ',
    'รอดำเนินการ',
    '待审批',
    '审批中',
    '保留',
    '承認待ち',
    'قيد_الانتظار',
    'معلق',
    'pendiente',
    'en_attente',
  ],
}
const APPROVAL_OF = new Map(
  Object.entries(APPROVALS).flatMap(([approval, words]) => words.map((word) => [word, approval as Approval])),
)
const isApproval = (word: string): word is Approval => Object.hasOwn(APPROVALS, word)

/**
 * What a note says when it tells a person not to refund its row, in the languages of the approval
 * words: begun with a word that holds the row back ("Skipping - duplicate", "On hold", "VOID",
 * "Rejected: fraud"), or saying it anywhere ("duplicate - skip", "do not refund", "refunded
 * already", "ไม่ต้องคืน"). A reason to refund that uses such a word inside ("order skipped by the
 * kitchen", "payment rejected by the bank", "customer don't like it") holds nothing back.
 */
const HOLD_BACK_FIRST =
  /^\s*(?:skip(?:s|ped|ping)?|hold(?:ing)?|on hold|ignored?|exclude[ds]?|void(?:ed)?|rejected|denied|declined|pending|wait(?:ing)?|not approved|unapproved|revoked|remove[ds]?|do not|don'?t|dont|no refund|not needed|already refunded|already paid back|refunded (?:already|manually|before|earlier)|duplicate - skip)(?:$|[^\p{L}])/iu
const HOLD_BACK_ANYWHERE =
  /(?:^|[^\p{L}])(?:do ?n[o']?t refund|dont refund|not to be refunded|on hold|hold off|[-–:;(,] *(?:skip|ignore|exclude|void|hold|on hold|revoked)\b|skip (?:this|it|row)|already refunded|refunded (?:already|manually)|already paid back|(?:no )?refund not needed|no refund needed|wait(?:ing)? for approval|revoked)(?:$|[^\p{L}])|不退款|不要退款|无需退款|已退款|跳过|暂缓|保留中|返金しない|返金不要|対象外|スキップ|ไม่ต้องคืน|ไม่คืนเงิน|ระงับ|nicht (?:zurück)?erstatten|keine erstattung|überspr(?:ingen|ungen)/iu

/** A note with its curly apostrophes straight: Word and Excel turn "don't" into "don’t". */
const plainQuotes = (note: string) => note.replace(/[\u2018\u2019]/g, "'")

/** What a status stands for: one of gw's words, or a gateway state compared as it is. */
export type StatusMeaning = {word: StatusWord; states: readonly string[]; refunded?: RefundedAs} | {state: string}

/** A status as compared: any case, spaces and hyphens as `_` ("Partially refunded" is partially_refunded). */
const keyOf = (status: string) =>
  status
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_')

const isWord = (word: string): word is StatusWord => Object.hasOwn(WORDS, word)
const isState = (state: string) => Object.hasOwn(ORDER_STATES, state.toUpperCase())

/** What each of the file's words means: gw's and POS systems' words, then the user's --status-map. */
export class StatusWords {
  readonly #mapped: ReadonlyMap<string, string>

  /**
   * `map`: --status-map's `YOURS=MEANING` values, checked (a usage error names the one that is
   * wrong). `approvals`: whether a word may mean approved, rejected or pending (a refund file's
   * rows); a settlement's status is a payment's, and such a meaning there would read as unknown.
   */
  constructor(map: readonly string[] = [], {approvals = true}: {approvals?: boolean} = {}) {
    const mapped = new Map<string, string>()
    for (const value of map) {
      const at = value.lastIndexOf('=')
      const [yours, meaning] = [value.slice(0, Math.max(0, at)).trim(), value.slice(at + 1).trim()]
      if (at === -1 || !yours || !meaning)
        throw usageError(`--status-map ${quoted(value)}: write it as YOURS=MEANING, e.g. --status-map "Settled=paid".`)
      const meanings = [...Object.keys(WORDS), ...(approvals ? Object.keys(APPROVALS) : [])]
      if (!isWord(keyOf(meaning)) && !(approvals && isApproval(keyOf(meaning))) && !isState(meaning))
        throw usageError(
          `--status-map ${quoted(value)}: ${quoted(meaning)} is not one of ${meanings.join(', ')} or a gateway state (${Object.keys(ORDER_STATES).join(', ')})${!approvals && isApproval(keyOf(meaning)) ? '; approval words are for refund files (gw refund create --from-csv), a settlement says what became of the payment' : ''}.`,
        )
      mapped.set(keyOf(yours), meaning)
    }
    this.#mapped = mapped
  }

  /**
   * Whether a row with `status` is approved, rejected or waiting, and whether the user said so
   * (--status-map); undefined when it is no approval word (a payment word, or none known).
   * `notes`: a note that starts with a word is that word ("Approved by Somchai"); without, only
   * a whole word is (a column judged by its cells: "no receipt" is a note, not an approval).
   */
  approvalOf(
    status: string,
    {notes = true}: {notes?: boolean} = {},
  ): {approval: Approval; mapped: boolean} | undefined {
    const mapped = this.#mapped.get(keyOf(status))
    if (mapped !== undefined)
      return isApproval(keyOf(mapped)) ? {approval: keyOf(mapped) as Approval, mapped: true} : undefined
    const whole = APPROVAL_OF.get(keyOf(status))
    if (whole || !notes) return whole && {approval: whole, mapped: false}
    // A note that starts with a word ("Approved by Somchai", "Rejected: duplicate") is that word,
    // unless it asks or says more ("Approved?", "Approved - on hold", "Approved, not yet"): then it
    // is no word gw knows, and its row a problem.
    const [first = '', ...rest] = status.match(/[\p{L}\p{M}]+/gu) ?? []
    const approval = status.trim().startsWith(first) ? APPROVAL_OF.get(keyOf(first)) : undefined
    const more = rest.some((word) => keyOf(word) === 'not' || (APPROVAL_OF.get(keyOf(word)) ?? approval) !== approval)
    // "Approved - skip", "Approved (revoked)": a note that holds its row back is no approval.
    const held = approval === 'approved' && HOLD_BACK_ANYWHERE.test(plainQuotes(status))
    return approval && !status.includes('?') && !more && !held ? {approval, mapped: false} : undefined
  }

  /** The words of a note that tell a person not to refund its row, or undefined when it says none. */
  holdsBack(note: string): string | undefined {
    const plain = plainQuotes(note)
    return (HOLD_BACK_FIRST.exec(plain) ?? HOLD_BACK_ANYWHERE.exec(plain))?.[0].trim()
  }

  /** What `status` means, or undefined when it is none of the words known or mapped. */
  meaningOf(status: string): StatusMeaning | undefined {
    const mapped = this.#mapped.get(keyOf(status))
    const key = keyOf(mapped ?? status)
    const word = isWord(key) ? key : SYNONYMS[key]
    if (word) return {word, ...WORDS[word]}
    const state = (mapped ?? status).trim().toUpperCase()
    return isState(state) ? {state} : undefined
  }

  /**
   * Why a sale with `status` did not stand, in words ("cancelled", "refunded", "not paid"), or
   * undefined when it did (paid, partly refunded) or the word is none known: a refund file's row
   * whose own status says so is not refunded.
   */
  notStanding(status: string): string | undefined {
    const meaning = this.meaningOf(status)
    if (!meaning) return undefined
    if ('state' in meaning)
      return ['SUCCESS', 'REFUND', 'PENDING', 'NOTSURE'].includes(meaning.state)
        ? undefined
        : `${meaning.state}: ${ORDER_STATES[meaning.state as keyof typeof ORDER_STATES]}`
    return DID_NOT_STAND[meaning.word]
  }

  /** Why `status` cannot be compared, with the flag that would say what it means. */
  unknown(status: string): string {
    return `status ${quoted(status)} is not one of ${Object.keys(WORDS).join(', ')} (or Cancelled, Void, Partially refunded and their Thai forms) or a gateway state; say what it means with --status-map ${shellWord(shown(`${status}=paid`, 60))} (or another of those words)`
  }
}
