import {utimesSync, writeFileSync} from 'node:fs'

import {describe, expect, it} from 'vitest'

import {fileSha256} from '../../../src/lib/io/file-version.js'
import {REPORT_COLUMNS} from '../../../src/lib/refunds/bulk/rows.js'
import {type ReportLine, readRefundFile, reportLines} from '../../../src/lib/refunds/bulk/refund-file.js'
import {tempFile} from '../../helpers/shared.js'

const read = (content: string | Buffer) => readRefundFile(tempFile('refunds.csv', content))
/** The report's lines that are rows. */
async function* rowsWithCells(file: Awaited<ReturnType<typeof read>>) {
  for await (const line of reportLines(file)) if ('row' in line) yield line
}
const problemsOf = async (content: string | Buffer) => (await read(content)).problems

describe('the refund file check: every problem named with its line', () => {
  const cases: [string, string, number, RegExp][] = [
    ['no order number column', 'order,refund_fee\nX,100\n', 1, /^no order number column/],
    ['no amount column', 'mch_order_no,amount\nX,1\n', 1, /^no amount column/],
    ['an empty order number', 'mch_order_no,refund_fee\n,100\n', 2, /^no order number/],
    ['a zero amount', 'mch_order_no,refund_fee\nX,0\n', 2, /^refund_fee is zero/],
    ['a zero decimal amount', 'mch_order_no,refund_amount\nX,0.00\n', 2, /^refund_amount is zero/],
    ['a negative amount', 'mch_order_no,refund_amount\nX,-5\n', 2, /^refund_amount "-5" is negative/],
    ['a parenthesised amount', 'mch_order_no,refund_amount\nX,(5.00)\n', 2, /^refund_amount "\(5.00\)" is negative/],
    [
      'an amount that reads two ways, alone in its column',
      'mch_order_no,refund_amount\nX,"1,500"\n',
      2,
      /^refund_amount: "1,500" reads two ways: 1500 with a decimal point, or 1.500 with a decimal comma/,
    ],
    ['a negative in minor units', 'mch_order_no,refund_fee\nX,-500\n', 2, /^refund_fee "-500" is negative/],
    ['a decimal in minor units', 'mch_order_no,refund_fee\nX,10.5\n', 2, /^refund_fee: "10.5" is not a whole number/],
    [
      'both amount forms, no currency to compare them in',
      'mch_order_no,refund_fee,refund_amount\nX,100,1.00\n',
      2,
      /^both refund_fee \("100"\) and refund_amount \("1.00"\) are filled, and no fee_type says their currency/,
    ],
    [
      'both amount forms, disagreeing',
      'mch_order_no,refund_fee,refund_amount,fee_type\nX,100,2.00,THB\n',
      2,
      /^both refund_fee \("100"\) and refund_amount \("2.00"\) are filled and disagree: 2.00 THB is 200 in minor units; give one/,
    ],
    [
      'no amount at all',
      'mch_order_no,refund_fee,refund_amount\nX,,\n',
      2,
      /^no amount: fill refund_fee or refund_amount/,
    ],
    ['an unknown currency', 'mch_order_no,refund_fee,fee_type\nX,100,USD\n', 2, /^fee_type "USD" is not a currency/],
    [
      'an over-long order number',
      `mch_order_no,refund_fee\n${'X'.repeat(33)},100\n`,
      2,
      /^mch_order_no is 33 characters; at most 32/,
    ],
    [
      'an over-long attach in Thai',
      `mch_order_no,refund_fee,attach\nX,100,${'ก'.repeat(128)}\n`,
      2,
      /^attach is 128 characters; at most 127/,
    ],
    [
      'more fields than columns',
      'mch_order_no,refund_fee\nX,100,extra\n',
      2,
      /^1 more field than the header has columns/,
    ],
    [
      'a channel refunds do not take',
      'mch_order_no,refund_fee,channel\nX,100,promptpay\n',
      2,
      /^channel "promptpay" cannot be refunded/,
    ],
    [
      'a bad order total',
      'mch_order_no,refund_fee,total_fee\nX,100,1.5\n',
      2,
      /^total_fee: "1.5" is not a whole number/,
    ],
  ]
  for (const [name, content, line, message] of cases) {
    it(name, async () => {
      const problems = await problemsOf(content)
      expect(problems).toEqual([{line, message: expect.stringMatching(message)}])
    })
  }

  it('too many decimals for the currency, per row', async () => {
    const problems = await problemsOf(
      'mch_order_no,refund_amount,fee_type\nX,10.5055,THB\nY,10.5,JPY\nZ,10.5,THB\nW,10.500,THB\nV,2.000,JPY\n',
    )
    expect(problems.map((p) => [p.line, p.message])).toEqual([
      [2, expect.stringMatching(/^refund_amount: THB has 2 decimal places/)],
      [3, expect.stringMatching(/^refund_amount: JPY has no minor unit/)],
      // Three places as written, whatever the zeros (the column's point is settled by line 2).
      [5, expect.stringMatching(/^refund_amount: THB has 2 decimal places; "10.500" has more/)],
      [6, expect.stringMatching(/^refund_amount: JPY has no minor unit; "2.000" must be a whole number/)],
    ])
  })

  it('a refund number used twice names the first line', async () => {
    const problems = await problemsOf('mch_order_no,refund_fee,mch_refund_no\nX,100,R1\nY,100,R2\nZ,100,R1\n')
    expect(problems).toEqual([
      {line: 4, message: 'mch_refund_no R1 is used again (first on line 2); each refund number may be used once'},
    ])
  })

  it('a broken quote is a usage error naming its line', async () => {
    await expect(read('mch_order_no,refund_fee\n"X,100\nY,1\n')).rejects.toMatchObject({
      kind: 'usage',
      message: expect.stringMatching(/line \d+: not valid CSV/),
    })
  })

  it('a column named twice is a usage error', async () => {
    await expect(read('mch_order_no,refund_fee,Refund_Fee\nX,1,2\n')).rejects.toMatchObject({
      kind: 'usage',
      message: 'Columns named twice: refund_fee.',
    })
  })

  it('columns named otherwise are read with --column; the missing ones are named with the flag that maps them', async () => {
    const content = 'Invoice No,Refund (THB),Customer\nINV-1,10.50,ก\n'
    const [order, amount] = await problemsOf(content)
    expect(order!.message).toMatch(/^no order number column: .*name yours with --column mch_order_no='Invoice No'$/)
    expect(amount!.message).toMatch(/^no amount column: .*name yours with --column refund_amount='Refund \(THB\)'$/)
    const mapped = await readRefundFile(tempFile('r.csv', content), {
      column: ['mch_order_no=Invoice No', 'refund_amount=Refund (THB)'],
    })
    expect(mapped.problems).toEqual([])
    expect(mapped.header.ignored).toEqual(['Customer'])
    expect(mapped.rows[0]!.request).toMatchObject({ref: {mch_order_no: 'INV-1'}, amount: {decimal: '10.50'}})
  })

  it('an empty file is a usage error', async () => {
    await expect(read('')).rejects.toMatchObject({
      kind: 'usage',
      message: expect.stringContaining('is empty: it needs a header row'),
    })
  })

  it('lists every problem of a file at once, each row kept (unusable rows without a request)', async () => {
    const file = await read('mch_order_no,refund_fee\n,100\nX,0\nY,abc\nZ,5\n')
    expect(file.problems.map((p) => p.line)).toEqual([2, 3, 4])
    expect(file.rows.map((r) => [r.line, Boolean(r.request)])).toEqual([
      [2, false],
      [3, false],
      [4, false],
      [5, true],
    ])
  })
})

describe('the decimal mark of an amount column, settled by its cells', () => {
  /** Each row as [line, the amount it asks for, or its problem]. */
  async function amounts(content: string, options: Parameters<typeof readRefundFile>[1] = {}) {
    const file = await readRefundFile(tempFile('refunds.csv', content), options)
    const problems = new Map(file.problems.map((p) => [p.line, p.message]))
    const rows = file.rows.map((r) => {
      const amount = r.request?.amount
      return [r.line, amount && 'decimal' in amount ? amount.decimal : problems.get(r.line)]
    })
    return {rows, marks: file.source.marks}
  }

  it('reads a tab-separated export of a comma-decimal locale by the cell that reads one way, rows before it too', async () => {
    // Excel's "Unicode text" or LibreOffice's tab export in French: 82,305 is 82.305, not 82305.
    const {rows, marks} = await amounts(
      'mch_order_no\trefund_amount\tfee_type\nA\t1,500\tTHB\nB\t82,305\tTHB\nC\t12,34\tTHB\nD\t1 500,00\tTHB\n',
    )
    expect(rows).toEqual([
      [2, 'refund_amount: THB has 2 decimal places; "1,500" (1.500) has more'],
      [3, 'refund_amount: THB has 2 decimal places; "82,305" (82.305) has more'],
      [4, '12.34'],
      [5, '1500.00'],
    ])
    expect(marks).toEqual([{field: 'refund_amount', mark: 'comma', line: 4, text: '12,34'}])
  })

  it('reads a point-decimal column the same way, in a file separated by semicolons', async () => {
    const {rows, marks} = await amounts('mch_order_no;refund_amount\nA;1,500\nB;"1,234.50"\nC;.30\n')
    expect(rows).toEqual([
      [2, '1500'],
      [3, '1234.50'],
      [4, '0.30'],
    ])
    expect(marks).toEqual([{field: 'refund_amount', mark: 'point', line: 3, text: '1,234.50'}])
  })

  it('refuses every cell that reads two ways when nothing settles the column, each with both readings', async () => {
    const {rows, marks} = await amounts('mch_order_no,refund_amount\nA,"1,500"\nB,"2,000"\nC,300\n')
    expect(rows).toEqual([
      [
        2,
        expect.stringMatching(
          /^refund_amount: "1,500" reads two ways: 1500 with a decimal point, or 1.500 with a decimal comma, .*--decimal-mark/,
        ),
      ],
      [3, expect.stringMatching(/^refund_amount: "2,000" reads two ways: 2000 .* or 2.000 with a decimal comma/)],
      [4, '300'],
    ])
    expect(marks).toEqual([])
  })

  it('reads them with --decimal-mark, and refuses a cell written with the other mark', async () => {
    const {rows, marks} = await amounts('mch_order_no,refund_amount\nA,"1,500"\nB,"12,34"\n', {'decimal-mark': 'point'})
    expect(rows).toEqual([
      [2, '1500'],
      [
        3,
        `refund_amount: "12,34" is written with a decimal comma, but its column's decimal mark is a point (--decimal-mark): check which is meant`,
      ],
    ])
    expect(marks).toEqual([{field: 'refund_amount', mark: 'point'}])
  })

  it('refuses a cell that contradicts the line that settled its column, naming that line', async () => {
    const {rows} = await amounts('mch_order_no,refund_amount\nA,"1,234.50"\nB,"12,34"\n')
    expect(rows[1]).toEqual([
      3,
      `refund_amount: "12,34" is written with a decimal comma, but its column's decimal mark is a point (line 2 shows it: "1,234.50"): check which is meant`,
    ])
  })
})

describe('order numbers a spreadsheet has changed', () => {
  it('one written in scientific notation (2.02611E+13) says its digits are lost', async () => {
    const problems = await problemsOf('mch_order_no,refund_amount\n2.02611E+13,1.00\n')
    expect(problems).toEqual([
      {
        line: 2,
        message:
          'mch_order_no "2.02611E+13" is a number a spreadsheet rounded and wrote in scientific notation: its digits are lost; format the column as text, type the numbers again and export it',
      },
    ])
  })

  it('one shorter than the zero-padded others of its column (123 for 000123) says the zeros were dropped, before or after them', async () => {
    const problems = await problemsOf('mch_order_no,refund_amount\n123,1.00\n000124,1.00\n125,1.00\n1000126,1.00\n')
    expect(problems.map((p) => [p.line, p.message])).toEqual([
      [
        4,
        'order number "125" is shorter than the zero-padded "000124" of line 3: a spreadsheet drops the leading zeros of a number (000125 becomes 125); format the column as text and type them again',
      ],
      [
        2,
        expect.stringMatching(
          /^order number "123" is shorter than the zero-padded "000124" of line 3: .*\(000123 becomes 123\)/,
        ),
      ],
    ])
  })
})

describe("a sale's own status in a refund file", () => {
  const file = [
    'mch_order_no,refund_amount,Status',
    'A,10.00,Paid',
    'B,10.00,Void',
    'C,10.00,Cancelled',
    'D,10.00,Refunded',
    'E,10.00,Failed',
    'F,10.00,ยกเลิก',
    'G,10.00,Approved',
    'H,10.00,Partially refunded',
  ].join('\n')

  it('a status saying the sale did not stand (Void, Cancelled, Refunded, Failed, their Thai forms) makes its row a problem', async () => {
    const problems = await problemsOf(file)
    expect(problems.map((p) => [p.line, p.message])).toEqual([
      [
        3,
        expect.stringMatching(
          /^its status "Void" says the sale did not stand \(cancelled\): such a row is never refunded; remove it, or say what the word means with --status-map Void=paid$/,
        ),
      ],
      [4, expect.stringMatching(/^its status "Cancelled" says the sale did not stand \(cancelled\)/)],
      [5, expect.stringMatching(/^its status "Refunded" says the sale did not stand \(refunded\)/)],
      [6, expect.stringMatching(/^its status "Failed" says the sale did not stand \(not paid\)/)],
      [7, expect.stringMatching(/^its status "ยกเลิก" says the sale did not stand \(cancelled\)/)],
    ])
  })

  it('--status-map says what a word means; a gateway state is read as it is', async () => {
    const mapped = await readRefundFile(tempFile('refunds.csv', file), {'status-map': ['Void=paid', 'Failed=SUCCESS']})
    expect(mapped.problems.map((p) => p.line)).toEqual([4, 5, 7])
    const states = await problemsOf('mch_order_no,refund_amount,state\nA,1.00,PAYERROR\nB,1.00,SUCCESS\n')
    expect(states.map((p) => [p.line, p.message])).toEqual([
      [2, expect.stringMatching(/^its status "PAYERROR" says the sale did not stand \(PAYERROR: payment failed\)/)],
    ])
  })

  it("gw's own report fed back: its status column is gw's word of the earlier run, not the sale's", async () => {
    const report = `mch_order_no,refund_amount,${REPORT_COLUMNS.filter((c) => c !== 'refund_amount').join(',')}\nA,10.00,refunded${','.repeat(REPORT_COLUMNS.length - 2)}\n`
    const read = await readRefundFile(tempFile('refunds.report.csv', report))
    expect(read.problems).toEqual([])
    expect(read.header.gwColumns.map((at) => read.header.names[at])).toContain('status')
  })
})

describe('the rows of a good file', () => {
  it('read BOM, CRLF, quotes, new lines in fields and headers in any case; line numbers stay exact', async () => {
    const content = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from(' MCH_Order_No ,Refund_Amount,Note\r\nA,10.00,"Khun ""VIP"""\r\nB,"0.5","ชา\r\nเขียว"\nC,100,x\n'),
    ])
    const file = await read(content)
    expect(file.problems).toEqual([])
    const cellsRead = []
    for await (const {row, cells} of rowsWithCells(file))
      cellsRead.push([row.line, row.request?.ref, row.request?.amount, cells.values[2]])
    expect(cellsRead).toEqual([
      [2, {mch_order_no: 'A'}, {decimal: '10.00'}, 'Khun "VIP"'],
      [3, {mch_order_no: 'B'}, {decimal: '0.5'}, 'ชา\r\nเขียว'],
      [5, {mch_order_no: 'C'}, {decimal: '100'}, 'x'],
    ])
  })

  it('reads the cells again for the report only from the file planned: one changed since is refused, never paired with the plan', async () => {
    const path = tempFile('refunds.csv', 'mch_order_no,refund_fee,note\nA,100,first\nB,200,second\n')
    const file = await readRefundFile(path)
    expect(file.sha256).toBe(await fileSha256(path))
    const again = async () => {
      const notes = []
      for await (const {cells} of rowsWithCells(file)) notes.push(cells.values[2])
      return notes
    }
    expect(await again()).toEqual(['first', 'second'])
    writeFileSync(path, 'mch_order_no,refund_fee,note\nA,100,first\nB,999,second\n')
    await expect(again()).rejects.toThrow(/refunds\.csv changed while gw was running.*SHA-256 [0-9a-f]{64}/)
  })

  it('refuses a report whose file was written over in place while its cells were being read, though every line is found', async () => {
    const path = tempFile('refunds.csv', 'mch_order_no,refund_fee,note\nA,100,first\nB,200,second\n')
    // Saved a while ago, as a user's file is (the system's clock ticks in milliseconds).
    utimesSync(path, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000))
    const file = await readRefundFile(path)
    const read = rowsWithCells(file)
    expect((await read.next()).value?.cells.values[2]).toBe('first')
    // The same size, other bytes: what `dd conv=notrunc` or an editor saving in place does.
    writeFileSync(path, 'mch_order_no,refund_fee,note\nA,900,first\nB,200,second\n')
    await expect(
      (async () => {
        for (let next = await read.next(); !next.done; next = await read.next());
      })(),
    ).rejects.toThrow(/changed while gw was running/)
  })

  it('walks every line again for the report: a title and a blank line above the header, blank lines between rows, totals; never the lines a quoted field spans', async () => {
    const file = await read(
      'Refunds November 2026\n\nmch_order_no,refund_amount,note\nA,1.00,"two\nlines"\n,,\nB,2.00,x\n\nTotal,3.00,\n',
    )
    const lines: [string, number, string][] = []
    const kind = (line: ReportLine) => Object.keys(line)[0]!
    for await (const line of reportLines(file)) {
      const at =
        'row' in line
          ? line.row.line
          : 'totals' in line
            ? line.totals.line
            : 'left' in line
              ? line.left.line
              : 'note' in line
                ? line.note.line
                : 'above' in line
                  ? line.above.line
                  : line.blank.line
      const values = 'cells' in line ? line.cells.values : 'above' in line ? line.above.values : line.blank.values
      lines.push([kind(line), at, values.join('|')])
    }
    expect(lines).toEqual([
      ['above', 1, 'Refunds November 2026'],
      ['above', 2, ''],
      ['row', 4, 'A|1.00|two\nlines'],
      ['blank', 6, ''],
      ['row', 7, 'B|2.00|x'],
      ['blank', 8, ''],
      ['totals', 9, 'Total|3.00|'],
    ])
  })

  it("both amount forms that agree (gw's own report read back, or a symbol naming the currency) are one amount", async () => {
    const file = await read('mch_order_no,refund_fee,refund_amount,fee_type\nX,150,1.50,THB\nY,2000,฿20,\n')
    expect(file.problems).toEqual([])
    expect(file.rows.map((r) => [r.request?.amount, r.feeType])).toEqual([
      [{minor: 150}, 'THB'],
      [{minor: 2000}, 'THB'],
    ])
  })

  it('keep a given refund number; others get theirs once the order is known', async () => {
    const file = await read('mch_order_no,refund_fee,mch_refund_no\nA,100,MY-R1\nB,100,\n')
    expect(file.rows.map((r) => r.mchRefundNo)).toEqual(['MY-R1', ''])
  })
})

describe('totals rows', () => {
  it('a row labelled Total/รวม, or without an order number and the sum of the rows above, is reported and not a row', async () => {
    const file = await read(
      'mch_order_no,refund_amount,note\nA,"1,000.50",\nB,2.50,\nรวม (Total),"1,003.00",\nC,5,\n,5.00,\nD,1,Total refund\nGrand total,99,\n',
    )
    expect(file.rows.map((r) => r.order)).toEqual(['A', 'B', 'C', 'D'])
    expect(file.totals).toEqual([
      {line: 4, label: 'รวม (Total)', amount: '1003.00', sum: '1003.00', agrees: true},
      {line: 6, label: '', amount: '5.00', sum: '5.00', agrees: true},
      {line: 8, label: 'Grand total', amount: '99', sum: '1', agrees: false},
    ])
    expect(file.problems).toEqual([])
  })

  it("a total printed with a sum's float noise (Gnumeric's CSV) is read as the spreadsheet held it", async () => {
    const file = await read(
      'mch_order_no,refund_amount\nGN-1,1267.11\nGN-2,12.34\nGN-3,1281.33\nGN-4,286.36\nTotal,2847.1399999999999999\n',
    )
    expect(file.totals).toEqual([{line: 6, label: 'Total', amount: '2847.14', sum: '2847.14', agrees: true}])
  })

  it('says why a total could not be checked: its own amount, or one above it', async () => {
    const own = await read('mch_order_no,refund_amount\nA,1.00\nTotal,1.00.0\n')
    expect(own.totals).toEqual([
      {
        line: 3,
        label: 'Total',
        amount: '1.00.0',
        sum: '1',
        unchecked: expect.stringMatching(/^its own amount could not be read: /),
      },
    ])
    const above = await read('mch_order_no,refund_amount\nA,1.00.0\nTotal,1.00\n')
    expect(above.totals).toEqual([
      {line: 3, label: 'Total', amount: '1.00', unchecked: 'an amount above it could not be read'},
    ])
  })

  it('a row without an order number that is not the sum of the rows above stays a problem of its line', async () => {
    const file = await read('mch_order_no,refund_amount\nA,10.00\n,7.00\n')
    expect(file.totals).toEqual([])
    expect(file.problems).toEqual([{line: 3, message: expect.stringMatching(/^no order number/)}])
  })
})
