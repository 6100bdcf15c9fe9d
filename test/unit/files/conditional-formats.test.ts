import {describe, expect, it} from 'vitest'

import {
  type ConditionalRule,
  excelRule,
  markRow,
  odfMapRule,
  odfRule,
  placed,
} from '../../../src/lib/files/conditional-formats.js'
import {formatEffect} from '../../../src/lib/files/rule-effects.js'
import {StatusWords} from '../../../src/lib/orders/status-words.js'

/** The cells of row `line` (A, B, C, D as `cells`) a rule strikes, by column letter. */
function struck(rule: ConditionalRule | string, line: number, cells: string[], numbers: Record<number, number> = {}) {
  if (typeof rule === 'string') throw new Error(rule)
  const row = {line, cells, notes: {}, struck: [] as number[], blanked: [] as number[]}
  markRow(row, [rule], numbers)
  return [...row.struck, ...row.blanked].map((at) => 'ABCD'[at]).join('')
}

describe('conditional formats that strike rows, evaluated on each row', () => {
  const row = (approved: string) => ['SHW-1', '10.00', 'ok', approved]
  it.each([
    ['expression $D2="no"', excelRule('A2:D9', {type: 'expression', formulas: ['$D2="no"']}, 'struck')],
    [
      'expression D2<>"yes" (relative column over one column)',
      excelRule('D2:D9', {type: 'expression', formulas: ['D2<>"yes"']}, 'struck'),
    ],
    ['LibreOffice\'s formula-is([.$D2]="no")', odfRule('Refunds.A2:Refunds.D9', 'formula-is([.$D2]="no")', 'struck')],
  ])('%s strikes the rows whose Approved is no, and only them', (_, rule) => {
    const all = typeof rule !== 'string' && rule.ranges[0]!.left === 0 ? 'ABCD' : 'D'
    expect(struck(rule, 3, row('no'))).toBe(all)
    expect(struck(rule, 4, row('yes'))).toBe('')
    expect(struck(rule, 12, row('no'))).toBe('')
  })

  it('a rule over whole columns (A:D, as Excel writes one set on columns) is evaluated on every row', () => {
    const rule = excelRule('A:D', {type: 'expression', formulas: ['$D1="no"']}, 'struck')
    expect(struck(rule, 3, row('no'))).toBe('ABCD')
    expect(struck(rule, 4, row('yes'))).toBe('')
    expect(struck(rule, 5000, row('no'))).toBe('ABCD')
  })

  it('cell value rules: equal a word (any case), greater than a number, between, text and blank rules', () => {
    const equal = excelRule('D2:D9', {type: 'cellIs', operator: 'equal', formulas: ['"Rejected"']}, 'struck')
    expect(struck(equal, 2, ['', '', '', 'REJECTED'])).toBe('D')
    const over = excelRule('B2:B9', {type: 'cellIs', operator: 'greaterThan', formulas: ['15']}, 'struck')
    expect(struck(over, 2, ['', '20.00'], {1: 20})).toBe('B')
    expect(struck(over, 2, ['', '10.00'], {1: 10})).toBe('')
    const between = excelRule('B2:B9', {type: 'cellIs', operator: 'between', formulas: ['5', '1']}, 'struck')
    expect(struck(between, 2, ['', '3'], {1: 3})).toBe('B')
    const contains = excelRule(
      'C2:C9',
      {type: 'containsText', operator: 'containsText', text: 'void', formulas: []},
      'hidden',
    )
    expect(struck(contains, 2, ['', '', 'VOIDED'])).toBe('C')
    expect(struck(odfRule('S.A2:S.A9', '="x"', 'struck'), 2, ['X'])).toBe('A')
    expect(struck(odfRule('S.C2:S.C9', 'begins-with("dup")', 'struck'), 2, ['', '', 'duplicate'])).toBe('C')
  })

  it('a rule of another shape, or one that reads another row, is never guessed: said in words', () => {
    expect(excelRule('A2:D9', {type: 'expression', formulas: ['AND($D2="no",$B2>5)']}, 'struck')).toBe(
      'a conditional format on A2:D9 that strikes its cells through when expression AND($D2="no",$B2>5)',
    )
    expect(typeof excelRule('A2:D9', {type: 'expression', formulas: ['$D1="no"']}, 'struck')).toBe('string')
    expect(typeof excelRule('A2:D9', {type: 'expression', formulas: ['$D$2="no"']}, 'struck')).toBe('string')
    expect(typeof excelRule('A2:D9', {type: 'top10', formulas: []}, 'struck')).toBe('string')
    expect(typeof odfRule('S.A2:S.D9', 'duplicate', 'hidden')).toBe('string')
  })
})

describe("a rule's own number format", () => {
  it('matters when it shows another number than the cell holds (scaled, a percentage, a date) or none', () => {
    expect(formatEffect('#,##0.00,')).toEqual({reformats: '#,##0.00,'})
    expect(formatEffect('0%')).toEqual({reformats: '0%'})
    expect(formatEffect('yyyy-mm-dd')).toEqual({reformats: 'yyyy-mm-dd'})
    expect(formatEffect(';;;')).toBe('hidden')
    // Decimals, grouping, a currency's symbol, a colour: the same number, as the cell's own format would show it.
    for (const code of ['#,##0.00', '0', '[$฿-41E]#,##0.00', '[Red]#,##0.00;[Red]-#,##0.00', '"RM"#,##0.00'])
      expect(formatEffect(code), code).toBeUndefined()
  })

  it('where the rule holds, the cell shows its number by it, and says so; elsewhere as it was', () => {
    const rule = excelRule(
      'B2:B9',
      {type: 'cellIs', operator: 'greaterThan', formulas: ['100']},
      {reformats: '#,##0.00,'},
    )
    if (typeof rule === 'string') throw new Error(rule)
    const rowOf = (line: number, shown: string, held: number) => ({
      line,
      cells: ['SHW-1', shown],
      notes: {1: {kind: 'number' as const, value: String(held), format: '#,##0.00'}},
      struck: [] as number[],
      blanked: [] as number[],
    })
    const over = rowOf(2, '1,500.00', 1500)
    markRow(over, [rule], {1: 1500})
    expect(over.cells[1]).toBe('1.50')
    expect(over.notes[1]).toMatchObject({format: '#,##0.00,', byRule: true})
    const under = rowOf(3, '50.00', 50)
    markRow(under, [rule], {1: 50})
    expect(under.cells[1]).toBe('50.00')
    expect(under.notes[1]).not.toHaveProperty('byRule')
  })
})

describe('a sheet of many rules (one copied row by row)', () => {
  it('each row is marked by the rules over it, the first listed formatting a cell first', () => {
    const rules: ConditionalRule[] = []
    for (let line = 2; line <= 3001; line++) {
      const rule = excelRule(`A${line}:D${line}`, {type: 'expression', formulas: [`$D${line}="no"`]}, 'struck')
      if (typeof rule !== 'string') rules.push(rule)
    }
    const over = (ref: string, code: string) =>
      excelRule(ref, {type: 'cellIs', operator: 'greaterThan', formulas: ['100']}, {reformats: code})
    // A one-row rule listed before a whole-column one formats its row; the whole-column one every other.
    for (const rule of [over('B2500:B2500', '0.0,,'), over('B:B', '#,##0.00,')])
      if (typeof rule !== 'string') rules.push(rule)
    const rowAt = (line: number, approved: string) => ({
      line,
      cells: ['SHW-1', '1,500.00', 'ok', approved],
      notes: {1: {kind: 'number' as const, value: '1500'}},
      struck: [] as number[],
      blanked: [] as number[],
    })
    const marked = [2, 300, 2500, 3001, 3002].map((line) => {
      const row = rowAt(line, line % 2 ? 'yes' : 'no')
      markRow(row, rules, {1: 1500})
      return [line, row.struck.join(''), row.cells[1]]
    })
    expect(marked).toEqual([
      [2, '0123', '1.50'],
      [300, '0123', '1.50'],
      [2500, '0123', '0.0'],
      [3001, '', '1.50'],
      [3002, '', '1.50'],
    ])
  })
})

describe('approval words', () => {
  const words = new StatusWords(['Escalated=pending', 'Fine=approved'])
  it.each([
    ['Approved', 'approved'],
    ['yes', 'approved'],
    ['อนุมัติ', 'approved'],
    ['Rejected', 'rejected'],
    ['ไม่อนุมัติ', 'rejected'],
    ['ปฏิเสธ', 'rejected'],
    ['On hold', 'pending'],
    ['รออนุมัติ', 'pending'],
    ['Escalated', 'pending'],
    ['Fine', 'approved'],
  ])('%j is %s', (word, approval) => {
    expect(words.approvalOf(word)?.approval).toBe(approval)
  })

  it('a note is the word it starts with, unless it asks or says more', () => {
    expect(words.approvalOf('Approved by Somchai')?.approval).toBe('approved')
    expect(words.approvalOf('Rejected: duplicate')?.approval).toBe('rejected')
    for (const note of ['Approved?', 'Approved - on hold', 'Approved (rejected later)', 'Yes, not yet', 'OK?'])
      expect(words.approvalOf(note), note).toBeUndefined()
  })

  it.each([
    'duplicate - skip',
    'SKIP',
    'Skipping - duplicate',
    'on hold till Monday',
    'HOLD - ask finance',
    'Holding until Monday',
    'do not refund',
    "Don't refund",
    'don\u2019t refund',
    'Ignored',
    'Excluded - test order',
    'VOID',
    'Rejected: fraud',
    'already refunded',
    'refunded manually on 12/1',
    'already paid back in cash',
    'refund not needed',
    'wait for approval',
    'ไม่ต้องคืน',
    'ระงับ',
    '不退款',
    '已退款',
    '返金不要',
    'keine Erstattung',
  ])('the note %j tells a person not to refund its row', (note) => expect(words.holdsBack(note)).toBeDefined())

  it.each([
    'duplicate charge',
    'customer cancelled',
    'no receipt',
    'skipper ordered twice',
    'refund requested',
    'damaged',
    'Customer not refunded yet - please refund',
    'Customer says no refund received, chasing',
    'Payment rejected by bank but customer was charged',
    "Customer don't like the item",
    'Order skipped by kitchen, refund',
    'Card denied first time, charged twice',
    'Customer asked to ignore earlier email, refund now',
    'ลูกค้าโอนข้ามธนาคารซ้ำ',
  ])('the note %j is a reason, not a hold', (note) => expect(words.holdsBack(note)).toBeUndefined())

  it('an approval that says more to hold its row back is no approval', () => {
    for (const note of ['Approved - skip', 'Approved - already refunded', 'Approved (revoked)'])
      expect(words.approvalOf(note), note).toBeUndefined()
  })

  it('a payment word is no approval word; a mapped word says it was mapped', () => {
    expect(words.approvalOf('paid')).toBeUndefined()
    expect(words.approvalOf('Escalated')).toEqual({approval: 'pending', mapped: true})
    expect(words.approvalOf('Rejected')).toEqual({approval: 'rejected', mapped: false})
  })
})

describe("ODF 1.2's conditional cell styles (style:map), placed on each cell of their style", () => {
  const mapped = (condition: string, base?: string) => {
    const rule = odfMapRule('ceMapped', {condition, ...(base ? {base} : {})}, 'struck')
    if (typeof rule === 'string') throw new Error(rule)
    return rule
  }

  it('cell-content()>15 and cell-content-is-between(1,5) test the cell itself', () => {
    const over = mapped('cell-content()>15')
    expect(struck(placed(over, 3, 1, 1), 3, ['SHW-74', '20.00'], {1: 20})).toBe('B')
    expect(struck(placed(over, 2, 1, 1), 2, ['SHW-73', '10.00'], {1: 10})).toBe('')
    const between = mapped('cell-content-is-between(1,5)')
    expect(struck(placed(between, 4, 1, 1), 4, ['SHW-75', '3.00'], {1: 3})).toBe('B')
    expect(struck(placed(between, 4, 1, 1), 4, ['SHW-75', '6.00'], {1: 6})).toBe('')
  })

  it('is-true-formula([.$D2]="no") counts its row from its base cell (Refunds.A2): on line 5 it asks D5', () => {
    const rule = mapped('is-true-formula([.$D2]="no")', 'Refunds.A2')
    expect(struck(placed(rule, 5, 0, 0), 5, ['SHW-1', '10.00', 'ok', 'no'])).toBe('A')
    expect(struck(placed(rule, 5, 0, 0), 5, ['SHW-1', '10.00', 'ok', 'yes'])).toBe('')
  })

  it('a condition of another shape is said, never guessed', () => {
    expect(odfMapRule('ceTop', {condition: 'is-true-formula(RANK([.B2];[.B$2:.B$9])<3)'}, 'hidden')).toBe(
      'a conditional cell style "ceTop" that hides its cells when is-true-formula(RANK([.B2];[.B$2:.B$9])<3)',
    )
  })
})
