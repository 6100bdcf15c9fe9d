import {mkdirSync, readFileSync, readdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {
  AnnotatedWriter,
  annotatedWidth,
  besideInput,
  fittedOutput,
  outputFor,
  spreadsheetSafe,
} from '../../../src/lib/files/annotated-output.js'
import {ignoredNote, markNotes} from '../../../src/lib/render/files.js'
import {resolveColumns} from '../../../src/lib/files/columns.js'
import {checkOutputs} from '../../../src/lib/files/output-paths.js'
import {openTable} from '../../../src/lib/files/table.js'
import {Tally} from '../../../src/lib/files/tally.js'
import {xmlSafe} from '../../../src/lib/untrusted.js'
import {tempDir} from '../../helpers/shared.js'
import {readWorkbook} from '../../helpers/workbooks.js'

const headerOf = (names: string[], read: string[] = []) => ({
  names,
  keys: names.map((n) => n.trim().toLowerCase()),
  ...resolveColumns(names, read),
  gwColumns: [],
  hidden: new Map(),
  unseen: [],
})

describe('an output checked for size before anything is sent', () => {
  const wide = headerOf(
    Array.from({length: 16_380}, (_, i) => (i === 0 ? 'mch_order_no' : `c${i}`)),
    ['mch_order_no'],
  )

  it("counts ours beside the file's columns: 16,380 and a status and a detail do not fit a worksheet", () => {
    expect(annotatedWidth(wide, ['status', 'detail', 'advice', 'mch_order_no', 'refund_fee'])).toBe(16_384)
    expect(annotatedWidth(wide, ['status', 'detail', 'advice', 'refund_fee', 'err_code'])).toBe(16_385)
  })

  it('writes a workbook that would not fit as CSV when gw named it, and refuses it when --out named it', () => {
    const size = {columns: 16_390, lines: 10, longest: 5}
    expect(fittedOutput('/d/refunds.report.xlsx', false, size)).toEqual({
      path: '/d/refunds.report.csv',
      note: "the output is written as CSV, refunds.report.csv: it has 16,390 columns, past a worksheet's 16,384",
    })
    expect(() => fittedOutput('/d/mine.xlsx', true, {columns: 3, lines: 1_048_577, longest: 40_000})).toThrow(
      "--out /d/mine.xlsx: the output would have 1,048,577 lines, past a worksheet's 1,048,576, and a cell of 40,000 characters, past a worksheet cell's 32,767: it does not fit a workbook.",
    )
    expect(fittedOutput('/d/mine.csv', true, size)).toEqual({path: '/d/mine.csv'})
    expect(fittedOutput('/d/mine.xlsx', true, {columns: 16_384, lines: 1_048_576, longest: 32_767})).toEqual({
      path: '/d/mine.xlsx',
    })
  })

  it('says the decimal mark each amount column was read with, and the line that showed it', () => {
    const header = headerOf(['Invoice No', 'Montant'], [])
    const index = new Map([['refund_amount', 1]])
    const source = {
      kind: 'csv' as const,
      marks: [{field: 'refund_amount', mark: 'comma' as const, line: 4, text: '12,34'}],
    }
    expect(markNotes(source, {...header, index})).toEqual([
      'amounts in "Montant" read with a decimal comma (line 4 shows it: "12,34")',
    ])
    const given = {kind: 'csv' as const, marks: [{field: 'refund_amount', mark: 'point' as const}]}
    expect(markNotes(given, {...header, index})).toEqual([
      'amounts in "Montant" read with a decimal point (as --decimal-mark says)',
    ])
  })

  it('names at most 20 ignored columns and hints, then how many more', () => {
    const names = Array.from({length: 16_379}, (_, i) => `c${i}`)
    const note = ignoredNote(names, [])!
    expect(note).toBe(
      `ignored columns: ${names
        .slice(0, 20)
        .map((n) => `"${n}"`)
        .join(', ')}, and 16,359 more`,
    )
  })
})

describe('annotated output', () => {
  it('is every input column, never changed, plus ours; a BOM unless asked not to', async () => {
    const dir = tempDir()
    for (const bom of [undefined, false]) {
      const out = join(dir, `out-${bom}.csv`)
      // The user's own STATUS is not the field gw read: ours goes beside it as gw_status.
      // mch_refund_no is the field read: ours fills only its empty cells.
      const header = headerOf(['order', 'STATUS', 'mch_refund_no'], ['mch_refund_no'])
      const writer = await AnnotatedWriter.open(out, header, ['status', 'mch_refund_no', 'detail'], {bom, sheet: 's'})
      const ours = {status: 'refunded', mch_refund_no: 'DERIVED', detail: {minor: 10650, currency: 'THB'}}
      await writer.write({values: ['A', 'Approved by Somchai', 'R-1']}, ours)
      await writer.write({values: ['B', '', '']}, ours)
      await writer.close()
      const text = readFileSync(out, 'utf8')
      expect(text).toBe(
        `${bom === false ? '' : '\ufeff'}order,STATUS,mch_refund_no,gw_status,detail\nA,Approved by Somchai,R-1,refunded,106.50\nB,,DERIVED,refunded,106.50\n`,
      )
    }
  })

  it("a CSV for a decimal-comma file writes gw's amounts with a decimal comma, beside its ; separator", async () => {
    const out = join(tempDir(), 'out.csv')
    const writer = await AnnotatedWriter.open(out, headerOf(['Rechnung']), ['refund_amount'], {
      sheet: 's',
      bom: false,
      delimiter: ';',
      decimalMark: 'comma',
    })
    await writer.write({values: ['GER-1']}, {refund_amount: {minor: 150_050, currency: 'THB'}})
    await writer.close()
    expect(readFileSync(out, 'utf8')).toBe('Rechnung;refund_amount\nGER-1;1500,50\n')
  })

  it('is not there until closed, and not at all when aborted', async () => {
    const out = join(tempDir(), 'out.csv')
    const writer = await AnnotatedWriter.open(out, headerOf(['a']), ['x'], {sheet: 's'})
    await writer.write({values: ['1']}, {x: 2})
    await writer.abort()
    expect(() => readFileSync(out)).toThrow()
  })

  it('as a workbook: text cells for text (23 digits intact, formulas inert), numbers, amounts with their decimals, frozen header, summary', async () => {
    const out = join(tempDir(), 'out.xlsx')
    const writer = await AnnotatedWriter.open(out, headerOf(['gw_order_no', 'note']), ['refund_fee', 'refund_amount'], {
      sheet: 'report',
    })
    await writer.write(
      {values: ['90020261121093015000001', '=1+1\u0007']},
      {
        refund_fee: 1250,
        refund_amount: {minor: 1250, currency: 'THB'},
      },
    )
    await writer.write({values: ['X', '']}, {refund_fee: 500, refund_amount: {minor: 500, currency: 'JPY'}})
    await writer.close({
      trail: [['input_file', 'refunds.xlsx']],
      header: ['status', 'amount'],
      rows: [['refunded', {minor: 1750, currency: 'THB'}]],
    })
    const [report, summary] = await readWorkbook(out)
    expect(report!.name).toBe('report')
    expect(report!.frozenRows).toBe(1)
    expect(report!.rows[0]!.map((c) => c.value)).toEqual(['gw_order_no', 'note', 'refund_fee', 'refund_amount'])
    expect(report!.rows[1]).toEqual([
      {value: '90020261121093015000001', type: 3},
      {value: '=1+1\\x07', type: 3},
      {value: 1250, type: 2},
      {value: 12.5, type: 2, numFmt: '#,##0.00'},
    ])
    expect(report!.rows[2]![3]).toEqual({value: 500, type: 2, numFmt: '#,##0'})
    expect(summary!.rows.map((r) => r.map((c) => c.value))).toEqual([
      ['input_file', 'refunds.xlsx'],
      ['status', 'amount'],
      ['refunded', 17.5],
    ])
  })

  it('a CSV neutralises header cells too, and writes its summary beside it', async () => {
    const out = join(tempDir(), 'r.report.csv')
    const writer = await AnnotatedWriter.open(out, headerOf(['=HYPERLINK("http://x","hdr")', 'n']), ['status'], {
      sheet: 's',
      bom: false,
    })
    await writer.write({values: ['a', '-50.00']}, {status: 'refunded'})
    await writer.close({trail: [['input_file', 'r.csv']], header: ['status', 'rows'], rows: [['refunded', 1]]})
    expect(readFileSync(out, 'utf8')).toBe(`"'=HYPERLINK(""http://x"",""hdr"")",n,status\na,-50.00,refunded\n`)
    expect(readFileSync(join(out, '..', 'r.report.summary.csv'), 'utf8')).toBe(
      'input_file,r.csv\n\nstatus,rows\nrefunded,1\n',
    )
  })

  it('a report never overwrites an earlier one: it is kept under its time, with its summary', async () => {
    const dir = tempDir()
    const out = join(dir, 'r.report.csv')
    const summary = {trail: [], header: ['status'], rows: []}
    for (const status of ['first', 'second']) {
      const writer = await AnnotatedWriter.open(out, headerOf(['n']), ['status'], {sheet: 's', bom: false, keep: true})
      await writer.write({values: ['1']}, {status})
      const kept = await writer.close(summary)
      if (status === 'first') expect(kept).toBeUndefined()
      else expect(kept).toMatch(/r\.report\.\d{4}-\d\d-\d\dT\d{6}\.csv$/)
    }
    const names = readdirSync(dir).sort()
    expect(names).toHaveLength(4)
    const earlier = names.find((n) => /^r\.report\.\d{4}.*\d\.csv$/.test(n))!
    expect(readFileSync(join(dir, earlier), 'utf8')).toContain('first')
    expect(readFileSync(out, 'utf8')).toContain('second')
    expect(names).toContain(earlier.replace(/\.csv$/, '.summary.csv'))
  })

  it("as a workbook: the input's numbers and dates typed with their formats, ours first after the order number, columns sized to content", async () => {
    const out = join(tempDir(), 'typed.xlsx')
    const header = headerOf(['note', 'mch_order_no', 'paid_on', 'weight'], ['mch_order_no'])
    const writer = await AnnotatedWriter.open(out, header, ['detail', 'status'], {sheet: 'r', lead: ['status']})
    const date = new Date(Date.UTC(2026, 10, 20))
    const order = 'INV-2026-11-20-000000000000000001'
    const typed = [
      {at: 2, typed: date, numFmt: 'yyyy-mm-dd'},
      {at: 3, typed: 1234.5, numFmt: '#,##0.00'},
    ]
    await writer.write({values: ['x', order, '2026-11-20', '1,234.50'], typed}, {status: 'refunded', detail: 'ok'})
    await writer.close()
    const [sheet] = await readWorkbook(out)
    expect(sheet!.rows[0]!.map((c) => c.value)).toEqual([
      'note',
      'mch_order_no',
      'status',
      'paid_on',
      'weight',
      'detail',
    ])
    expect(sheet!.rows[1]!.slice(3, 5)).toEqual([
      {value: date, type: 4, numFmt: 'yyyy-mm-dd'},
      {value: 1234.5, type: 2, numFmt: '#,##0.00'},
    ])
    expect(sheet!.widths[1]).toBeGreaterThanOrEqual(order.length)
    expect(sheet!.widths[0]).toBeLessThan(12)
  })

  it("writes the input's text back exactly, a CR too, and gw reads its own CSV and workbook back to the same text", async () => {
    const texts = ['\r=1+1', 'a\r\nb\rc\nd', 'x_x0041_y', ' =2']
    for (const name of ['same.csv', 'same.xlsx']) {
      const out = join(tempDir(), name)
      const writer = await AnnotatedWriter.open(out, headerOf(['mch_order_no', 'a', 'b', 'c', 'd']), ['status'], {
        sheet: 'r',
        bom: false,
      })
      await writer.write({values: ['INV-1', ...texts]}, {status: 'refunded'})
      await writer.close()
      if (name.endsWith('.csv'))
        expect(readFileSync(out, 'utf8')).toBe(
          `mch_order_no,a,b,c,d,status\nINV-1,"'\r=1+1","a\r\nb\rc\nd",x_x0041_y,' =2,refunded\n`,
        )
      const table = await openTable(out, {fields: ['mch_order_no']})
      const rows = []
      for await (const row of table.rows) rows.push(row.values)
      expect(rows).toEqual([['INV-1', ...texts, 'refunded']])
    }
  })

  it('goes beside the input by default, as a workbook when the input is one', () => {
    expect(besideInput('/data/orders-2026.csv', '.reconciled.csv')).toBe('/data/orders-2026.reconciled.csv')
    expect(outputFor('/data/o.xlsx', undefined, '.report', 'xlsx')).toBe('/data/o.report.xlsx')
    expect(outputFor('/data/o.xlsx', 'mine.csv', '.report', 'xlsx')).toBe('mine.csv')
    expect(outputFor('/data/o.csv', 'MINE.XLSX', '.report', 'csv')).toBe('MINE.XLSX')
  })
})

describe('where outputs may go', () => {
  const dir = tempDir('gw-outputs-')
  const input = join(dir, 'orders.csv')
  writeFileSync(input, 'mch_order_no\n')
  const check =
    (path: string, table = true) =>
    () =>
      checkOutputs(input, [{flag: '--out', path, table}])

  it('a table is named .csv or .xlsx; other names are refused, saying what gw writes', () => {
    expect(check(join(dir, 'report.csv'))).not.toThrow()
    expect(check(join(dir, 'report.XLSX'))).not.toThrow()
    expect(check(join(dir, 'report.txt'))).toThrow('gw writes .xlsx workbooks and CSV files, not .txt')
    expect(check(join(dir, 'report.xls'))).toThrow('not .xls')
    expect(check(join(dir, 'report'))).toThrow('gw writes .xlsx workbooks and CSV files.')
    expect(check(join(dir, 'journal.jsonl'), false)).not.toThrow()
  })

  it('never a device, a folder, a missing folder, or the input itself', () => {
    expect(check('/dev/null', false)).toThrow('--out /dev/null is not a file (a device or a pipe)')
    expect(check(join(dir, 'a-folder.csv'))).not.toThrow()
    mkdirSync(join(dir, 'a-folder.csv'))
    expect(check(join(dir, 'a-folder.csv'))).toThrow('is a folder')
    expect(check(join(dir, 'nowhere', 'report.csv'))).toThrow('does not exist')
    expect(check(join(dir, 'report.csv/'))).toThrow('ends in a folder separator')
    expect(check('/dev/null/report.csv')).toThrow('/dev/null is not a folder')
    expect(check(input)).toThrow('is the input file')
    expect(() => checkOutputs(undefined, [{flag: '--out', path: input, table: true}])).not.toThrow()
  })
})

describe('tally', () => {
  it('counts rows and sums amounts per group and currency, in minor units and as decimals; a row without an amount is counted, not summed', () => {
    const tally = new Tally<'match' | 'amount_mismatch', 'gateway_total_fee' | 'merchant_total_fee'>()
    tally.add('amount_mismatch', 'THB', {gateway_total_fee: 100, merchant_total_fee: 150})
    tally.add('match', 'THB', {gateway_total_fee: 5, merchant_total_fee: 5})
    tally.add('match', 'THB', {gateway_total_fee: 7})
    tally.add('match', undefined, {})
    tally.add('match', 'THB', {gateway_total_fee: undefined})
    tally.add('match', 'JPY', {merchant_total_fee: 1500})
    expect(tally.lines(['match', 'amount_mismatch'])).toEqual([
      {group: 'match', currency: '?', rows: 1},
      {group: 'match', currency: 'JPY', rows: 1, merchant_total_fee: 1500, merchant_total_amount: '1500'},
      {
        group: 'match',
        currency: 'THB',
        rows: 3,
        gateway_total_fee: 12,
        gateway_total_amount: '0.12',
        merchant_total_fee: 5,
        merchant_total_amount: '0.05',
      },
      {
        group: 'amount_mismatch',
        currency: 'THB',
        rows: 1,
        gateway_total_fee: 100,
        gateway_total_amount: '1.00',
        merchant_total_fee: 150,
        merchant_total_amount: '1.50',
      },
    ])
  })
})

describe('cells a spreadsheet opens safely', () => {
  it('neutralise text a spreadsheet would read as a formula, and leave numbers and other text alone', () => {
    const formulas = ['=1+1', '+1', '-1+1', '-1e3', '@SUM(A1)', '\tx', '\rx', '=HYPERLINK("http://x","hdr")']
    // A CR or LF before the formula (a CR read as a new line), and spaces an importer trims.
    formulas.push('\r=1+1', '\n=1+1', '\r\n@SUM(A1)', ' =x', ' \u00a0+1', '\uff1d1+1', ' \uff20SUM(A1)')
    for (const formula of formulas) expect(spreadsheetSafe(formula)).toBe(`'${formula}`)
    for (const text of ['INV-1', 'a=b', '', 'x =y', ' x', '-50.00', '1234', '-7', '123456789012345'])
      expect(spreadsheetSafe(text)).toBe(text)
    expect(spreadsheetSafe(-5)).toBe('-5')
    expect(spreadsheetSafe(undefined)).toBe('')
  })

  it('keep identifiers past 15 digits text: a leading tab, so no import rounds them to a number', () => {
    expect(spreadsheetSafe('91020261123194400000001')).toBe('\t91020261123194400000001')
    expect(spreadsheetSafe('1234567890123456')).toBe('\t1234567890123456')
  })

  it('make visible what a workbook cannot hold (controls, lone surrogates), keep the rest', () => {
    expect(xmlSafe('a\u0001b\ud800c\tก😀\n')).toBe('a\\x01b\\uD800c\tก😀\n')
  })
})
