/**
 * An amount as people write it and spreadsheets export it: the currency's symbol, code or word
 * beside it (and in a column's header), its signs, and its decimal mark and thousands groups,
 * read exactly into the plain decimal money.ts converts. Nothing is rounded or guessed: a text
 * that reads two ways is refused with both readings.
 */
import {quoted} from '../../untrusted.js'
import {AmountError, CURRENCIES, type Currency, exponentOf, isCurrency} from './money.js'

/** The symbols, codes and words people write beside an amount, by currency (after NFKC: `￥` is `¥`). */
const CURRENCY_MARKS: Record<Currency, readonly string[]> = {
  THB: ['฿', 'THB', 'บาท', 'BAHT'],
  MYR: ['RM', 'MYR', 'RINGGIT'],
  JPY: ['¥', '円', 'JPY', 'YEN'],
  AED: ['AED', 'د.إ', 'DIRHAM', 'DIRHAMS', 'درهم'],
}

/**
 * Currencies the gateway does not take, as people and spreadsheet formats write them (`US$12.50`,
 * `[$€-407]`, `£`): an amount written in one is never read as the order's. `$` alone is a dollar
 * of some country.
 */
const FOREIGN_MARKS: Readonly<Record<string, readonly string[]>> = {
  USD: ['US$', 'USD'],
  'a dollar ($)': ['$'],
  SGD: ['S$', 'SGD'],
  HKD: ['HK$', 'HKD'],
  AUD: ['A$', 'AU$', 'AUD'],
  EUR: ['€', 'EUR'],
  GBP: ['£', 'GBP'],
  CNY: ['CN¥', 'RMB', 'CNY', '元', '人民币'],
  KRW: ['₩', 'KRW'],
  INR: ['₹', 'INR'],
  IDR: ['RP', 'IDR'],
  VND: ['₫', 'VND'],
  PHP: ['₱', 'PHP'],
  CHF: ['CHF'],
}

/** Every mark, longest first (`US$` before `$`, `CN¥` before `¥`), with the currency it names (gateway's or not). */
const MARKS = [
  ...Object.entries(CURRENCY_MARKS).flatMap(([currency, marks]) => marks.map((mark) => ({mark, currency}))),
  ...Object.entries(FOREIGN_MARKS).flatMap(([currency, marks]) => marks.map((mark) => ({mark, currency}))),
].sort((a, b) => b.mark.length - a.mark.length)

/** Whether `mark` stands as a word in `text` at `at` (a code or word is not part of a longer word: `RM` in `FORM`). */
const standsAlone = (text: string, at: number, mark: string) => {
  if (!/^[A-Z]/.test(mark)) return true
  const before = text[at - 1] ?? ' '
  const after = text[at + mark.length] ?? ' '
  return !/[A-Z0-9]/i.test(before) && !/[A-Z]/i.test(after)
}

/**
 * The currency a column's header names (`Refund (JPY)`, `Amount THB`, `ยอดคืน (บาท)`, `金額(円)`,
 * `Refund in US$`), with the mark as written; undefined when it names none or two.
 */
export function currencyOfHeader(header: string): {currency: string; mark: string} | undefined {
  const upper = header.normalize('NFKC').toUpperCase()
  const found = new Map<string, string>()
  for (const {mark, currency} of MARKS) {
    for (let at = upper.indexOf(mark); at !== -1; at = upper.indexOf(mark, at + 1)) {
      if (!standsAlone(upper, at, mark)) continue
      // A longer mark already seen here (`US$` over `$`).
      if ([...found.values()].some((m) => m.length > mark.length && m.includes(mark))) continue
      found.set(currency, mark)
      break
    }
  }
  if (found.size !== 1) return undefined
  const [currency, mark] = [...found][0]!
  return {currency, mark}
}

/**
 * The scale a header or title says its amounts are in (`Refunds in thousands of baht`,
 * `Amount ('000 THB)`, `ยอด (พันบาท)`, `金額(千円)`), as written; undefined for none. gw never
 * scales an amount: such a file is refused.
 */
export function scaleOfHeader(text: string): string | undefined {
  return /\b(?:thousands?|millions?|in k|k thb)\b|'000|000s|พัน|ล้าน|千|百万|万/i.exec(text.normalize('NFKC'))?.[0]
}

/** The currency a mark stands for (`฿`, `US$`, `RM`, `thb`), gateway's or not; undefined for none. */
export function currencyOfMark(mark: string): string | undefined {
  const upper = mark.normalize('NFKC').trim().toUpperCase()
  return MARKS.find((m) => m.mark === upper)?.currency
}

/** An amount written in another currency than the one it is read in (the row's, the column's): its message says both. */
export class CurrencyMismatch extends AmountError {}

/** The decimal mark of a column of amounts: a point (1,234.50) or a comma (1.234,50). */
export type DecimalMark = 'point' | 'comma'

/** An amount read from text: its digits as a plain decimal, its sign, the currency its text names, and the mark its text shows. */
export interface TypedAmount {
  decimal: string
  negative: boolean
  currency?: Currency
  /** The decimal mark the text can only be read with (`1,234.50`, `0.30`: point; `12,34`: comma); none when any reads it alike. */
  mark?: DecimalMark
}

/** How the text of an amount is read beside its own characters: its column's decimal mark, and the file's encoding. */
export interface AmountContext {
  /** The column's decimal mark, settled by its cells or --decimal-mark; `by` says which. */
  mark?: DecimalMark
  by?: string
  /** The text was Shift_JIS or CP932, where the yen sign is the byte of `\`. */
  yen?: boolean
}

/** A cell that reads two ways (`1,500`, `1.500`, `82,305`) in a column whose mark nothing settles. */
export class AmbiguousAmount extends AmountError {}

const MARK_WORDS: Record<DecimalMark, {mark: string; name: string; groups: string}> = {
  point: {mark: '.', name: 'a decimal point', groups: ",'’ "},
  comma: {mark: ',', name: 'a decimal comma', groups: '. '},
}
const SEPARATOR_NAMES: Record<string, string> = {
  ',': 'a comma',
  '.': 'a dot',
  "'": 'an apostrophe',
  '’': 'an apostrophe',
  ' ': 'a space',
}

/**
 * The digits of `body` (digits and separators only) read with `mark` as the decimal mark, or why
 * they cannot be: the other separators group thousands, three digits a group, one kind of
 * separator; with a decimal point, commas may also group as Indian lakh (1,50,000.00: a group of
 * three, then twos).
 */
function readWith(body: string, mark: DecimalMark): {decimal: string} | {why: string} {
  const words = MARK_WORDS[mark]
  const parts = body.split(words.mark)
  if (parts.length > 2) return {why: `has more than one ${words.mark === '.' ? 'dot' : 'comma'} for ${words.name}`}
  const [whole, fraction] = parts as [string, string | undefined]
  if (fraction !== undefined && !/^\d+$/.test(fraction))
    return {why: fraction === '' ? 'ends in its decimal mark' : 'has separators after its decimal mark'}
  if (whole === '' && fraction === undefined) return {why: 'has no digits'}
  const separators = new Set(whole.replace(/\d/g, ''))
  if (separators.size > 1)
    return {why: `groups its digits with ${[...separators].map((s) => SEPARATOR_NAMES[s]).join(' and ')}`}
  const [separator] = separators
  if (separator !== undefined) {
    if (!words.groups.includes(separator))
      return {
        why: `has ${SEPARATOR_NAMES[separator] ?? 'a separator'} between digits, which does not group them with ${words.name}`,
      }
    const thousands = new RegExp(`^\\d{1,3}(?:\\${separator}\\d{3})+$`).test(whole)
    const lakh = separator === ',' && /^\d{1,2}(?:,\d{2})+,\d{3}$/.test(whole)
    if (!thousands && !lakh)
      return {
        why: `has the grouping ${whole}, which is neither thousands (groups of three digits)${separator === ',' ? ' nor Indian lakh (1,50,000: a group of three, then twos)' : ''}`,
      }
  }
  const digits = whole.replace(/\D/g, '') || '0'
  return {decimal: fraction === undefined ? digits : `${digits}.${fraction}`}
}

/** What the amount rule accepts, for messages. */
const AMOUNT_FORMS =
  "digits with a decimal point or comma and optional thousands separators (1,267.11; 1.267,11; 1 267,11; 1'267.11; 1,26,711.00), the currency's symbol, code or word before or after (฿ THB บาท baht RM MYR ¥ 円 JPY AED د.إ)"

const DIGITS = /^\d+$/

/** Thai, Arabic-Indic and Persian digits as 0 to 9, and the Arabic decimal and thousands marks as `.` and `,`. */
function withLatinDigits(text: string): string {
  return text.replace(/[\u0e50-\u0e59\u0660-\u0669\u06f0-\u06f9\u066b\u066c]/g, (c) => {
    const code = c.charCodeAt(0)
    if (code === 0x066b) return '.'
    if (code === 0x066c) return ','
    const zero = code >= 0x0e50 ? 0x0e50 : code >= 0x06f0 ? 0x06f0 : 0x0660
    return String(code - zero)
  })
}

/**
 * An amount as people type it and spreadsheets export it, exactly (the digits are kept as text):
 * `1,267.11`, `1.267,11`, `1 500,00`, `1'500.00`, `1,50,000.00`, `.30`, `฿1,281.33`,
 * `1,500.00 บาท`, `AED 1,295.55`, `+1,500.00`, full-width digits and signs (read by Unicode
 * compatibility, NFKC); a leading or trailing minus or parentheses make it negative (the caller
 * refuses it as a refund, never turning it positive). The decimal mark is the text's own when it
 * can be read only one way (`1,234.50`, `0.30`: point; `12,34`, `1.234,50`: comma; a thousands
 * group always has three digits), else the column's (`context.mark`); a text that reads two ways
 * (`1,500`, `1.500`, `82,305`) without one is an AmbiguousAmount giving both readings. Anything
 * else is an AmountError saying what is wrong and what is allowed.
 */
export function readAmountText(text: string, currency?: string, context: AmountContext = {}): TypedAmount {
  // Most cells are plain digits (what exports write): read as they are.
  if (DIGITS.test(text)) return {decimal: text, negative: false}
  const refuse = (why: string) => new AmountError(`${quoted(text)} ${why}; write ${AMOUNT_FORMS}`)
  // NFKC would make a footnote's superscript, a circled or a fraction number digits: 150¹ is not 1501.
  const other = /\p{No}/u.exec(text)?.[0]
  if (other)
    throw refuse(`has ${quoted(other)}, a superscript, circled or fraction number, which is no digit of an amount`)
  let plain = withLatinDigits(text)
    .normalize('NFKC')
    .replace(/[\u2212\u2012\u2013]/g, '-')
    .replace(/[\s\u2000-\u200b\u202f\u205f\u3000]+/g, ' ')
    .trim()
  if (context.yen) plain = plain.replace(/^\\|\\$/g, '¥')
  const {rest, negative, named} = undressed(plain, refuse)
  const wanted = currency?.toUpperCase()
  checkNamedCurrency(text, named, wanted)
  if (!/^[\d.,'’ ]+$/.test(rest) || !/\d/.test(rest)) throw refuse('is not an amount')
  const of = named ?? (wanted && isCurrency(wanted) ? wanted : undefined)
  const {decimal, mark} = readDecimalMark(text, rest, of, context, refuse)
  return {decimal, negative, ...(named ? {currency: named as Currency} : {}), ...(mark ? {mark} : {})}
}

/**
 * The digits of an amount's text without what dresses them: its signs (a minus before or after,
 * parentheses, a plus) and its currency's symbol, code or word, in any order; one sign at most,
 * one currency at most.
 */
function undressed(
  text: string,
  refuse: (why: string) => AmountError,
): {rest: string; negative: boolean; named?: string} {
  let rest = text
  let signs = 0
  let plus = 0
  let named: string | undefined
  for (let changed = true; changed && rest;) {
    changed = false
    const paren = /^\((.*)\)$/s.exec(rest)
    if (paren) {
      rest = paren[1]!.trim()
      signs++
      changed = true
    }
    if (rest.startsWith('-') || rest.endsWith('-')) {
      rest = (rest.startsWith('-') ? rest.slice(1) : rest.slice(0, -1)).trim()
      signs++
      changed = true
    }
    if (rest.startsWith('+')) {
      rest = rest.slice(1).trim()
      plus++
      changed = true
    }
    for (const {mark, currency: of} of MARKS) {
      const upper = rest.toUpperCase()
      const starts = upper.startsWith(mark) && standsAlone(upper, 0, mark)
      if (!starts && !(upper.endsWith(mark) && standsAlone(upper, upper.length - mark.length, mark))) continue
      if (named) throw refuse('names its currency twice')
      named = of
      rest = (starts ? rest.slice(mark.length) : rest.slice(0, -mark.length)).trim()
      changed = true
      break
    }
  }
  if (signs + plus > 1) throw refuse('has more than one sign or parentheses')
  return {rest, negative: signs === 1, named}
}

/** The currency an amount's text names must be one the gateway takes, and the row's (`wanted`) when it has one. */
function checkNamedCurrency(text: string, named: string | undefined, wanted: string | undefined): void {
  if (named && !isCurrency(named))
    throw new CurrencyMismatch(
      `${quoted(text)} is written in ${named}, which the gateway does not take (${CURRENCIES.join(', ')})${wanted ? `; the row is ${wanted}` : ''}`,
    )
  if (named && wanted && isCurrency(wanted) && named !== wanted)
    throw new CurrencyMismatch(`${quoted(text)} is written in ${named} but the row is ${wanted}`)
}

/**
 * The decimal `digits` (digits and separators) stand for, and the mark it was read with when only
 * one reads it: the text's own mark, else the column's (`context.mark`), else none for a currency
 * (`of`) without minor units; a text that reads two ways otherwise is an AmbiguousAmount.
 */
function readDecimalMark(
  text: string,
  digits: string,
  of: string | undefined,
  context: AmountContext,
  refuse: (why: string) => AmountError,
): {decimal: string; mark?: DecimalMark} {
  const point = readWith(digits, 'point')
  const comma = readWith(digits, 'comma')
  if ('decimal' in point && 'decimal' in comma) {
    if (point.decimal === comma.decimal) return {decimal: point.decimal}
    if (context.mark) return {decimal: context.mark === 'point' ? point.decimal : comma.decimal}
    // A currency without minor units has no decimal mark to read: 1,500 and 1.500 yen are 1500.
    if (of && exponentOf(of) === 0) return {decimal: point.decimal.includes('.') ? comma.decimal : point.decimal}
    throw new AmbiguousAmount(
      `${quoted(text)} reads two ways: ${point.decimal} with ${MARK_WORDS.point.name}, or ${comma.decimal} with ${MARK_WORDS.comma.name}, and no amount of its column shows which mark it uses: give --decimal-mark point or --decimal-mark comma`,
    )
  }
  const only = 'decimal' in point ? 'point' : 'decimal' in comma ? 'comma' : undefined
  if (!only) {
    // Why, as read with the mark it most likely meant: its last point or comma.
    const why = digits.lastIndexOf(',') > digits.lastIndexOf('.') ? comma : point
    throw refuse((why as {why: string}).why)
  }
  if (context.mark && context.mark !== only)
    throw new AmountError(
      `${quoted(text)} is written with ${MARK_WORDS[only].name}, but its column's decimal mark is a ${context.mark}${context.by ? ` (${context.by})` : ''}: check which is meant`,
    )
  return {decimal: ((only === 'point' ? point : comma) as {decimal: string}).decimal, mark: only}
}
