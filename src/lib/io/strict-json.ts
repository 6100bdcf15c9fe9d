/**
 * JSON that means one thing: a document whose objects name a key twice is refused, since
 * parsers disagree on which of the two counts (JSON.parse keeps the last, others the first).
 * Read with momoa, ESLint's JSON parser, which keeps every member.
 */
import {type AnyNode, parse} from '@humanwhocodes/momoa'

export class DuplicateKeyError extends Error {}

function check(node: AnyNode): void {
  if (node.type === 'Document') return check(node.body)
  if (node.type === 'Array') return node.elements.forEach((element) => check(element.value))
  if (node.type !== 'Object') return
  const seen = new Set<string>()
  for (const member of node.members) {
    const name = member.name.type === 'String' ? member.name.value : member.name.name
    if (seen.has(name)) throw new DuplicateKeyError(`the key "${name}" is given twice`)
    seen.add(name)
    check(member.value)
  }
}

/** JSON.parse, refusing duplicate keys (DuplicateKeyError) as well as what JSON.parse refuses (SyntaxError). */
export function parseStrictJson(text: string): unknown {
  const value: unknown = JSON.parse(text)
  check(parse(text))
  return value
}
