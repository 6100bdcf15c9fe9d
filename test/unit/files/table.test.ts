import {join} from 'node:path'

import ExcelJS from 'exceljs'

import {describe, expect, it} from 'vitest'

import {HOLD_LIMIT} from '../../../src/lib/files/decimal-marks.js'
import {type ReadOptions, openTable} from '../../../src/lib/files/table.js'
import {tempDir, tempFile} from '../../helpers/shared.js'
import {writeRawWorkbook, writeWorkbook, writeZip} from '../../helpers/workbooks.js'

const FIELDS = ['mch_order_no', 'amount', 'status']

/** The header and each row as [line, order, amount, every value]. */
async function read(path: string, options: Omit<ReadOptions, 'fields'> = {}) {
  const table = await openTable(path, {fields: FIELDS, ...options})
  const rows = []
  for await (const row of table.rows) rows.push([row.line, row.get('mch_order_no'), row.get('amount'), row.values])
  return {source: table.source, names: table.header.names, ignored: table.header.ignored, rows}
}

describe('CSV tables', () => {
  it("hold back at most HOLD_LIMIT rows waiting for their amount column's decimal mark, and keep their order", async () => {
    const waiting = Array.from({length: HOLD_LIMIT}, (_, i) => `W${i},"1,500"`).join('\n')
    const path = tempFile('t.csv', `mch_order_no,amount\n${waiting}\nS,"1,234.50"\nT,"2,500"\n`)
    const table = await openTable(path, {fields: FIELDS, amounts: ['amount']})
    const marks: [number, string | undefined][] = []
    for await (const row of table.rows) marks.push([row.line, row.amountContext('amount').mark])
    // The first HOLD_LIMIT rows went on unsettled; the settling line and those after it read with its point.
    expect(marks.length).toBe(HOLD_LIMIT + 2)
    expect(marks.map(([line]) => line)).toEqual(Array.from({length: HOLD_LIMIT + 2}, (_, i) => i + 2))
    expect(marks[0]).toEqual([2, undefined])
    expect(marks.slice(-2)).toEqual([
      [HOLD_LIMIT + 2, 'point'],
      [HOLD_LIMIT + 3, 'point'],
    ])
    expect(table.source.marks).toEqual([{field: 'amount', mark: 'point', line: HOLD_LIMIT + 2, text: '1,234.50'}])
  })

  it('give each row the line it starts on, across CRLF, CR and quoted new lines', async () => {
    const {rows} = await read(tempFile('t.csv', 'mch_order_no,amount\r\n1,"x\r\ny"\r2,z\n\n3,w\n'))
    expect(rows.map((r) => r.slice(0, 3))).toEqual([
      [2, '1', 'x\r\ny'],
      [4, '2', 'z'],
      [6, '3', 'w'],
    ])
  })

  it('read a field exactly as written: a CR or CRLF inside quotes stays, while CR, CRLF and LF each end a row', async () => {
    const text = 'mch_order_no,amount,note\r1,"\r=1+1",a\r\n2,"p\r\nq",b\n3,"r\rs",c\r4,"t\nu",d\r\n\r5,x,y'
    const {rows} = await read(tempFile('t.csv', text))
    expect(rows.map((r) => [r[0], r[3]])).toEqual([
      [2, ['1', '\r=1+1', 'a']],
      [4, ['2', 'p\r\nq', 'b']],
      [6, ['3', 'r\rs', 'c']],
      [8, ['4', 't\nu', 'd']],
      [11, ['5', 'x', 'y']],
    ])
  })

  it('read CR and CRLF the same where a 64 KiB chunk of the file ends: a row end, a quoted field, a quote open across it', async () => {
    // createReadStream reads 64 KiB at a time: `cut` is the first character of the second chunk.
    const cut = 64 * 1024
    const at = (before: string, after: string) => {
      const header = 'mch_order_no,amount,note\n'
      const filler = `0,0,${'f'.repeat(cut - header.length - before.length - '0,0,\n'.length)}\n`
      return tempFile('t.csv', `${header}${filler}${before}${after}`)
    }
    const rowsOf = async (path: string) => (await read(path)).rows.slice(1).map((r) => [r[0], r[3]])
    // A CRLF ending a row, cut between its CR and LF: one row end, not two.
    expect(await rowsOf(at('1,a,b\r', '\n2,c,d\r\n3,e,f'))).toEqual([
      [3, ['1', 'a', 'b']],
      [4, ['2', 'c', 'd']],
      [5, ['3', 'e', 'f']],
    ])
    // A CRLF inside quotes, cut: kept whole in its field.
    expect(await rowsOf(at('1,"x\r', '\ny",b\r2,c,d'))).toEqual([
      [3, ['1', 'x\r\ny', 'b']],
      [5, ['2', 'c', 'd']],
    ])
    // A quote opened before the cut and closed after it, with a separator, a doubled quote and a lone CR inside.
    expect(await rowsOf(at('1,"a,""q', '"",\r=1+1",b\r2,c,d'))).toEqual([
      [3, ['1', 'a,"q",\r=1+1', 'b']],
      [5, ['2', 'c', 'd']],
    ])
    // A lone CR ending a row as the first chunk's last character.
    expect(await rowsOf(at('1,a,b\r', '2,c,d'))).toEqual([
      [3, ['1', 'a', 'b']],
      [4, ['2', 'c', 'd']],
    ])
  })

  it('tell the separator from the header line: semicolons (decimal commas stay in their field), tabs', async () => {
    const semicolons = await read(tempFile('t.csv', 'mch_order_no;amount;note\nA;10,50;"x;y"\n'))
    expect(semicolons.source).toMatchObject({kind: 'csv', delimiter: ';'})
    expect(semicolons.rows[0]![3]).toEqual(['A', '10,50', 'x;y'])
    const tabs = await read(tempFile('t.csv', 'mch_order_no\tamount\nA\t1,000.00\n'))
    expect(tabs.rows[0]![3]).toEqual(['A', '1,000.00'])
    const given = await read(tempFile('t.csv', 'mch_order_no|amount\nA|1\n'), {delimiter: '|'})
    expect(given.rows[0]![3]).toEqual(['A', '1'])
    await expect(read(tempFile('t.csv', 'a\n'), {delimiter: 'xx'})).rejects.toThrow(/--delimiter xx is not a separator/)
  })

  it('read UTF-16 by its BOM (Excel "Unicode text"), and Windows-874 when told', async () => {
    const text = 'mch_order_no\tamount\tลูกค้า\r\nINV-1\t106.50\tสมชาย\r\n'
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])
    const fromUtf16 = await read(tempFile('t.txt', utf16))
    expect(fromUtf16.source).toEqual({kind: 'csv', encoding: 'utf-16le', delimiter: '\t', marks: []})
    expect(fromUtf16.rows).toEqual([[2, 'INV-1', '106.50', ['INV-1', '106.50', 'สมชาย']]])
    // ก (0xA1) ข (0xA2) in Windows-874 / TIS-620.
    const thai = tempFile('t.csv', Buffer.from([...Buffer.from('mch_order_no,x\nA,'), 0xa1, 0xa2, 0x0a]))
    expect((await read(thai, {encoding: 'windows-874'})).rows[0]![3]).toEqual(['A', 'กข'])
    await expect(read(thai)).rejects.toThrow('line 2: the text is not valid UTF-8')
  })

  it('say what is wrong with a file that is not a table, naming the line when there is one', async () => {
    await expect(read(tempFile('t.csv', ''))).rejects.toThrow('is empty: it needs a header row')
    await expect(read(join(tempDir(), 'missing.csv'))).rejects.toThrow('does not exist')
    await expect(read(tempDir())).rejects.toThrow('is a folder')
    await expect(read(tempFile('t.csv', 'a,b\n"x,1\n'))).rejects.toThrow(
      /line 2: not valid CSV \(a quoted field is not closed\)/,
    )
    // A CRLF inside quotes on an earlier row is one line of the file, as an editor shows it.
    await expect(read(tempFile('t.csv', 'a,b\r\n1,"x\r\ny"\r\n2,"z"q\r\n'))).rejects.toThrow(
      /line 4: not valid CSV \(text right after the closing quote of a field\)/,
    )
    await expect(read(tempFile('t.csv', 'a\n1\n'), {sheet: 'Orders'})).rejects.toThrow('--sheet is for .xlsx workbooks')
  })
})

describe('what a CSV table reads', () => {
  it("a value gw's own output guarded against spreadsheets is read as it was ('-INV-10 is -INV-10)", async () => {
    const {rows} = await read(tempFile('t.csv', "mch_order_no,amount\n'-INV-10,'=1\n'plain,2\n"))
    expect(rows.map((r) => r[3])).toEqual([
      ['-INV-10', '=1'],
      ["'plain", '2'],
    ])
  })

  it('rows of empty fields are left out; a file with a header and no rows is refused', async () => {
    const {rows} = await read(tempFile('t.csv', 'mch_order_no,amount\n,,\nA,1\n ,\n'))
    expect(rows.map((r) => r[0])).toEqual([3])
    await expect(read(tempFile('t.csv', 'mch_order_no,amount\n,\n'))).rejects.toThrow('has a header but no rows')
  })

  it('a --delimiter that makes the header one column is said, with what to do', async () => {
    await expect(read(tempFile('t.csv', 'mch_order_no;amount\nA;1\n'), {delimiter: ','})).rejects.toThrow(
      'the header is one column',
    )
  })
})

describe('workbook tables', () => {
  it('name the merged range that covers a cell (the mergeCells after the rows), and mark hidden rows', async () => {
    const workbook = new ExcelJS.Workbook()
    const sheet = workbook.addWorksheet('Refunds')
    sheet.addRows([
      ['mch_order_no', 'amount'],
      ['A', 1],
      [null, 2],
      ['B', 3],
    ])
    sheet.mergeCells('A2:A3')
    sheet.getRow(4).hidden = true
    const path = join(tempDir(), 'merged.xlsx')
    await workbook.xlsx.writeFile(path)
    const table = await openTable(path, {fields: FIELDS})
    const rows = []
    for await (const row of table.rows) rows.push([row.line, row.merged('mch_order_no'), row.hidden])
    expect(rows).toEqual([
      [2, undefined, undefined],
      [3, 'A2:A3', undefined],
      [4, undefined, 'hidden'],
    ])
  })

  it('read the first visible sheet, or the one named in any case; say which there are', async () => {
    const path = await writeWorkbook(join(tempDir(), 'w.xlsx'), [
      {name: 'Hidden', rows: [['x']], state: 'hidden'},
      {
        name: 'Orders',
        rows: [
          ['mch_order_no', 'amount'],
          ['A', 1],
        ],
      },
      {
        name: 'ยอดขาย',
        rows: [
          ['mch_order_no', 'amount'],
          ['B', 2],
        ],
      },
    ])
    const first = await read(path)
    expect(first.source).toEqual({kind: 'xlsx', sheet: 'Orders', sheets: ['Orders', 'ยอดขาย'], marks: []})
    expect(first.rows).toEqual([[2, 'A', '1', ['A', '1']]])
    expect((await read(path, {sheet: 'ยอดขาย'})).rows).toEqual([[2, 'B', '2', ['B', '2']]])
    expect((await read(path, {sheet: ' orders '})).source.sheet).toBe('Orders')
    await expect(read(path, {sheet: 'Refunds'})).rejects.toThrow(
      'has no sheet named "Refunds"; its sheets are: "Orders", "ยอดขาย"',
    )
    await expect(read(path, {encoding: 'windows-874'})).rejects.toThrow('--encoding is for CSV files')
  })

  it('read the same, read after read, a workbook stored as exceljs and Excel store them (sheets before the shared strings)', async () => {
    // Two races in exceljs's streaming reader, met about once in two hundred reads: a sheet passed
    // over lost its temporary file while still opening it (an uncaught ENOENT), and a workbook.xml
    // stored last was parsed as nothing ("reading 'sheets'").
    const path = await writeWorkbook(join(tempDir(), 'w.xlsx'), [
      {name: 'Hidden', rows: [['x']], state: 'hidden'},
      {name: 'Notes', rows: [['a note']]},
      {
        name: 'Orders',
        rows: [
          ['mch_order_no', 'amount'],
          ['A', 1],
        ],
      },
    ])
    for (let i = 0; i < 300; i++)
      expect((await read(path, {sheet: 'orders'})).rows).toEqual([[2, 'A', '1', ['A', '1']]])
  })

  it('skip empty rows and keep the sheet row numbers as lines', async () => {
    const path = await writeWorkbook(join(tempDir(), 'w.xlsx'), [
      {name: 'S', rows: [['mch_order_no', 'amount'], ['A', 1], [], [null, null], ['B', 2]]},
    ])
    expect((await read(path)).rows.map((r) => r[0])).toEqual([2, 5])
  })

  it('a ZIP archive that is not a workbook, and a workbook cut short, are exit-2 problems', async () => {
    const dir = tempDir()
    const path = await writeWorkbook(join(dir, 'w.xlsx'), [{name: 'S', rows: [['mch_order_no'], ['A']]}])
    const bytes = (await import('node:fs')).readFileSync(path)
    await expect(read(tempFile('cut.xlsx', bytes.subarray(0, bytes.length / 2)))).rejects.toMatchObject({
      kind: 'usage',
      message: expect.stringMatching(/cannot be read as a workbook|workbook is damaged/),
    })
    await writeZip(join(dir, 'other.zip'), {'a.txt': 'hi'})
    await expect(read(join(dir, 'other.zip'))).rejects.toThrow(
      'is not a CSV or .xlsx file: it is a ZIP archive without a worksheet',
    )
  })

  it('a header none of whose columns is named as gw names them is found below a title row, by the columns that look like fields', async () => {
    const read = {fields: ['mch_order_no', 'refund_amount'], required: [['mch_order_no'], ['refund_amount']]}
    const titled = await openTable(
      tempFile('t.csv', 'Refunds November 2026\nInvoice No,Refund (THB),Reason\nGN-1,1.00,late\n'),
      read,
    )
    expect(titled.header).toMatchObject({line: 2, names: ['Invoice No', 'Refund (THB)', 'Reason']})
    expect(titled.source.titles).toEqual([{line: 1, text: 'Refunds November 2026'}])
    // A title that looks like one field loses to the header that has more columns.
    const tie = await openTable(tempFile('u.csv', 'Order refunds\nInvoice No,Refund,Reason\nGN-1,1.00,late\n'), read)
    expect(tie.header.line).toBe(2)
    // Nothing looks like a header: the first row is said to be it, as before.
    expect((await openTable(tempFile('v.csv', 'a,b\nc,d\n'), read)).header.line).toBe(1)
  })

  it('an Excel Binary Workbook (.xlsb: the package with binary parts) is refused by its name, with the way out', async () => {
    const ctype = (part: string, type: string) =>
      `<Override PartName="/xl/${part}" ContentType="application/vnd.ms-excel.${type}"/>`
    const path = await writeZip(join(tempDir(), 'Refunds.xlsb'), {
      '[Content_Types].xml': `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="bin" ContentType="application/vnd.ms-excel.sheet.binary.macroEnabled.main"/>${ctype('worksheets/sheet1.bin', 'worksheet')}</Types>`,
      '_rels/.rels': `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.bin"/></Relationships>`,
      'xl/workbook.bin': '\u0083\u0001\u0000',
      'xl/_rels/workbook.bin.rels':
        '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"/>',
      'xl/worksheets/sheet1.bin': '\u0081\u0001\u0000',
    })
    await expect(read(path)).rejects.toMatchObject({
      kind: 'usage',
      message: expect.stringContaining('is not a CSV or .xlsx file: it is an Excel Binary Workbook (.xlsb)'),
      advice: 'Open it in Excel and save it as Excel Workbook (.xlsx), or export the sheet as CSV UTF-8.',
    })
  })

  it("read a cell's text as Excel writes it: a CR as _x000D_ (shared or inline), an escaped _ as _x005F_", async () => {
    const strings = `<?xml version="1.0"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>mch_order_no</t></si><si><t>note</t></si><si><t xml:space="preserve">_x000D_=1+1</t></si><si><t>a_x005F_x000D_b</t></si></sst>`
    const s = (ref: string, i: number) => `<c r="${ref}" t="s"><v>${i}</v></c>`
    const rows =
      `<row r="1">${s('A1', 0)}${s('B1', 1)}</row><row r="2"><c r="A2" t="inlineStr"><is><t>INV-1</t></is></c>${s('B2', 2)}</row>` +
      `<row r="3"><c r="A3" t="inlineStr"><is><r><t>INV_x000D_2</t></r></is></c>${s('B3', 3)}</row>`
    const path = await writeRawWorkbook(join(tempDir(), 'excel.xlsx'), strings, rows)
    const table = await openTable(path, {fields: ['mch_order_no', 'note']})
    const values = []
    for await (const row of table.rows) values.push(row.values)
    expect(values).toEqual([
      ['INV-1', '\r=1+1'],
      ['INV\r2', 'a_x000D_b'],
    ])
  })
})
