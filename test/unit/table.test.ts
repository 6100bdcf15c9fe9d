import {describe, expect, it} from 'vitest'

import {table} from '../../src/lib/render/table.js'

describe('tables for people', () => {
  it('rule the head off, not every row: ten rows take fourteen lines', () => {
    const rows = Array.from({length: 10}, (_, i) => [i + 1, `INV-${i + 1}`, '150.50 THB'])
    const lines = table(['line', 'order', 'amount'], rows).split('\n')
    expect(lines).toHaveLength(14)
    expect(lines.filter((line) => line.startsWith('├'))).toHaveLength(1)
    expect(lines[3]).toMatch(/^│ 1 +│ INV-1 +│ 150\.50 THB │$/)
  })
})
