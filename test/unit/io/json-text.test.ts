import {describe, expect, it} from 'vitest'

import {jsonChunks, jsonPieces} from '../../../src/lib/io/json-text.js'

/** A list made as it is iterated, counting how many of its items exist at once. */
function lazyRows(count: number) {
  const made = {live: 0, most: 0}
  const list = {
    *[Symbol.iterator]() {
      for (let i = 0; i < count; i++) {
        made.live++
        made.most = Math.max(made.most, made.live)
        yield {line: i + 2, status: 'would_refund', skipped: undefined, note: i % 2 ? 'a "quoted"\nnote' : undefined}
        made.live--
      }
    },
  }
  return {list, made}
}

const text = (value: unknown) => [...jsonPieces(value)].join('')

describe('jsonPieces', () => {
  it('writes exactly what JSON.stringify(value, null, 2) writes, with a lazy list as the array it stands for', () => {
    const {list} = lazyRows(3)
    const document = {
      csv: '/tmp/a.csv',
      dry_run: true,
      report: null,
      gone: undefined,
      problems: [{line: 4, message: 'no amount'}],
      empty: [],
      nothing: {},
      rows: list,
      nested: {deeper: [1, 'two', null]},
    }
    const same = {...document, rows: [...list]}
    expect(text(document)).toBe(JSON.stringify(same, null, 2))
    expect(JSON.parse(text(document))).toEqual(JSON.parse(JSON.stringify(same)))
  })

  it('writes an empty lazy list as [] and a list holding undefined as null, as JSON.stringify does', () => {
    const empty = {*[Symbol.iterator]() {}}
    const holes = {
      *[Symbol.iterator]() {
        yield undefined
        yield 1
      },
    }
    expect(text({rows: empty})).toBe(JSON.stringify({rows: []}, null, 2))
    expect(text({rows: holes})).toBe(JSON.stringify({rows: [undefined, 1]}, null, 2))
    expect(text([holes, 'x'])).toBe(JSON.stringify([[undefined, 1], 'x'], null, 2))
  })

  it('writes a generator as the list it makes, and maps, sets and typed arrays as JSON.stringify does', () => {
    function* made() {
      yield {a: 1}
      yield {b: [2]}
    }
    const others = {map: new Map([['k', 1]]), set: new Set([1]), typed: Uint8Array.of(7), date: new Date(0)}
    expect(text({rows: made(), ...others})).toBe(JSON.stringify({rows: [{a: 1}, {b: [2]}], ...others}, null, 2))
  })

  it('makes the items of a lazy list one at a time: a million rows never exist at once', () => {
    const {list, made} = lazyRows(10_000)
    let written = 0
    for (const chunk of jsonChunks({rows: list})) written += chunk.length
    expect(made.most).toBe(1)
    expect(written).toBe(JSON.stringify({rows: [...list]}, null, 2).length + 1)
  })

  it('comes in chunks of bounded size, the last ending with a new line', () => {
    const {list} = lazyRows(5000)
    const pieces = [...jsonChunks({rows: list})]
    expect(pieces.length).toBeGreaterThan(5)
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThan(70_000)
    expect(pieces.at(-1)!.endsWith('}\n')).toBe(true)
    expect(JSON.parse(pieces.join('')).rows).toHaveLength(5000)
  })
})
