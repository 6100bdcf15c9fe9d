import {describe, expect, it} from 'vitest'

import {type Output, formOf} from '../../src/lib/io/streams.js'
import {listed, table} from '../../src/lib/render/table.js'

describe('tables for people', () => {
  it('rule the head off, not every row: ten rows take fourteen lines', () => {
    const rows = Array.from({length: 10}, (_, i) => [i + 1, `INV-${i + 1}`, '150.50 THB'])
    const lines = table(['line', 'order', 'amount'], rows, {terminal: true}).split('\n')
    expect(lines).toHaveLength(14)
    expect(lines.filter((line) => line.startsWith('├'))).toHaveLength(1)
    expect(lines[3]).toMatch(/^│ 1 +│ INV-1 +│ 150\.50 THB │$/)
  })
})

describe('a table on a terminal narrower than it', () => {
  const head = ['made', 'order', 'amount', 'state', 'gateway order', 'payer']
  const rows = [
    ['2026-12-01T10:00:00+07:00', 'INV-1001', '150.50 THB', 'SUCCESS', '90020261201100000000001', 'oUpF8u…WeS6o'],
  ]
  const widest = (text: string) => Math.max(...text.split('\n').map((line) => line.length))

  it('leaves out the least useful columns until it fits, and says which and where they all are', () => {
    const whole = table(head, rows, {terminal: true, width: 200})
    expect(whole).toContain('gateway order')
    const fitted = table(
      head,
      rows,
      {terminal: true, width: 80},
      {drop: ['payer', 'gateway order', 'state'], whole: '--json'},
    )
    const [drawn, said] = [fitted.split('\n').slice(0, -1).join('\n'), fitted.split('\n').at(-1)]
    expect(widest(drawn)).toBeLessThanOrEqual(80)
    expect(drawn).not.toContain('payer')
    expect(drawn).not.toContain('90020261201100000000001')
    // Only as many as it takes: the state stays.
    expect(drawn).toContain('SUCCESS')
    expect(said).toBe('(left out to fit: payer, gateway order; all in --json)')
  })

  it('wraps its widest cells within their columns when leaving columns out is not enough', () => {
    const wrapped = table(head, rows, {terminal: true, width: 60}, {drop: ['payer'], whole: '--json'})
    const lines = wrapped.split('\n')
    expect(lines.at(-1)).toBe('(left out to fit: payer; all in --json)')
    expect(widest(lines.slice(0, -1).join('\n'))).toBeLessThanOrEqual(60)
    // Every cell is still there, in pieces on the lines of its row.
    const body = lines.slice(lines.findIndex((line) => line.startsWith('├')) + 1, -2)
    const cells = body.map((line) => line.split('│').map((cell) => cell.trim()))
    const column = (at: number) => cells.map((cell) => cell[at]).join('')
    expect(column(1)).toBe('2026-12-01T10:00:00+07:00')
    expect(column(5)).toBe('90020261201100000000001')
  })

  it('never wraps a column named unwrapped: the order number stays on one line', () => {
    const wrapped = table(head, rows, {terminal: true, width: 64}, {drop: ['payer'], unwrapped: ['gateway order']})
    expect(wrapped).toContain(' 90020261201100000000001 ')
    expect(widest(wrapped.split('\n').slice(0, -1).join('\n'))).toBeLessThanOrEqual(64)
  })

  it('is drawn whole when it fits, or on a terminal of no known width', () => {
    const terminal = {terminal: true}
    expect(table(head, rows, {terminal: true, width: 200}, {drop: ['payer']})).toBe(table(head, rows, terminal))
    // Narrower than its columns can wrap to (8 characters each, or their head), as narrow as they go.
    expect(widest(table(head, rows, {terminal: true, width: 40}))).toBe(8 + 8 + 8 + 8 + 15 + 8 + 7)
    expect(table(head, rows, terminal, {drop: ['payer']})).toContain('payer')
  })

  it('piped: its head line, then a tab-separated line per row, nothing left out, no rules', () => {
    const piped = table(head, [...rows, ['x', 'INV\t2\ny', '', '', '', '']], {terminal: false}, {drop: ['payer']})
    expect(piped.split('\n')).toEqual([
      'made\torder\tamount\tstate\tgateway order\tpayer',
      '2026-12-01T10:00:00+07:00\tINV-1001\t150.50 THB\tSUCCESS\t90020261201100000000001\toUpF8u…WeS6o',
      'x\tINV\\t2\\ny\t\t\t\t',
    ])
  })
})

describe('a list, as gh shows its lists', () => {
  const head = ['made', 'order', 'state']
  const rows = [
    ['2026-12-01T10:00:00+07:00', 'INV-1002', 'NOTPAY'],
    ['2026-12-01T09:00:00+07:00', 'INV\t1001\nx', 'SUCCESS'],
  ]

  it('piped: a tab-separated line per item, no head, the footnotes for stderr; a tab or new line inside a cell made visible', () => {
    const view = listed(head, rows, {drop: ['state']}, {terminal: false}, ['the first 2 of 9 orders shown', undefined])
    expect(view.text).toBe(
      '2026-12-01T10:00:00+07:00\tINV-1002\tNOTPAY\n2026-12-01T09:00:00+07:00\tINV\\t1001\\nx\tSUCCESS',
    )
    expect(view.notes).toEqual(['the first 2 of 9 orders shown'])
  })

  it('on a terminal: the table fitted to its width, the footnotes under it', () => {
    const view = listed(head, rows, {drop: ['state']}, {terminal: true, width: 44}, ['2 orders'])
    expect(view.notes).toEqual([])
    const lines = view.text.split('\n')
    expect(lines[1]).toMatch(/^│ made +│ order +│$/)
    expect(lines.at(-2)).toBe('(left out to fit: state)')
    expect(lines.at(-1)).toBe('2 orders')
  })

  it("takes a terminal's width from the stream, and a pipe as no terminal", () => {
    expect(formOf({isTTY: true, columns: 80} as Output)).toEqual({terminal: true, width: 80})
    expect(formOf({} as Output)).toEqual({terminal: false})
  })
})
