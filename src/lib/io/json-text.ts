/**
 * A JSON document as JSON.stringify(value, null, 2) writes it, in pieces: a lazy list (an
 * iterable that is not an array, such as the rows of a bulk run made as they are read) is
 * written item by item. A document of a million rows is then never one string (V8 caps a
 * string at about 512 MiB) and its items never all exist at once.
 */

/**
 * A list made as it is iterated: a generator, or a plain object with an iterator (as
 * `rowViews` makes). Maps, sets and typed arrays are not: JSON.stringify writes them its way.
 */
function isLazyList(value: unknown): value is Iterable<unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  if (typeof (value as Partial<Iterable<unknown>>)[Symbol.iterator] !== 'function') return false
  return Object.getPrototypeOf(value) === Object.prototype || String(value) === '[object Generator]'
}

/** Whether a value holds a lazy list at its top level (then it is written piece by piece). */
const holdsLazyList = (value: unknown): boolean =>
  isLazyList(value) || (typeof value === 'object' && value !== null && Object.values(value).some((v) => isLazyList(v)))

/** What JSON.stringify leaves out of an object (and writes as null in a list). */
const omitted = (value: unknown) => value === undefined || typeof value === 'function' || typeof value === 'symbol'

/** The whole value as JSON.stringify(value, null, 2) writes it, at the indentation `indent`. */
const whole = (value: unknown, indent: string) => JSON.stringify(value, null, 2).replaceAll('\n', `\n${indent}`)

/** The pieces of the document; joined, they are exactly JSON.stringify(value, null, 2). */
export function* jsonPieces(value: unknown, indent = ''): Generator<string> {
  if (!holdsLazyList(value)) {
    yield whole(value, indent)
    return
  }
  const inner = `${indent}  `
  const list = isLazyList(value) || Array.isArray(value)
  let first = true
  yield list ? '[' : '{'
  const entries: Iterable<[string | undefined, unknown]> = list
    ? (function* () {
        for (const item of value as Iterable<unknown>) yield [undefined, omitted(item) ? null : item]
      })()
    : Object.entries(value as object).filter(([, v]) => !omitted(v))
  for (const [key, item] of entries) {
    yield `${first ? '' : ','}\n${inner}${key === undefined ? '' : `${JSON.stringify(key)}: `}`
    first = false
    yield* jsonPieces(item, inner)
  }
  yield first ? (list ? ']' : '}') : `\n${indent}${list ? ']' : '}'}`
}

/** How much of a document is gathered before it is written (fewer, larger writes). */
export const JSON_CHUNK = 64 * 1024

/** The document and a new line in chunks of about JSON_CHUNK, for a stream to take as it drains. */
export function* jsonChunks(value: unknown): Generator<string> {
  let buffered = ''
  for (const piece of jsonPieces(value)) {
    buffered += piece
    if (buffered.length >= JSON_CHUNK) {
      yield buffered
      buffered = ''
    }
  }
  yield `${buffered}\n`
}
