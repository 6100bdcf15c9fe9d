/**
 * A digest of what gw read of a file's lines, line by line (the line's number and its cells as
 * read), so that a file can be known to have only grown: the digest of its first lines is the
 * digest an earlier reading made of all of them. Of the cells as read, not of the bytes: a
 * workbook saved again after rows were appended is the same sheet grown.
 */
import {createHash} from 'node:crypto'

export class LinesDigest {
  readonly #hash = createHash('sha256')
  #last = 0

  add(line: number, values: readonly string[]): void {
    this.#hash.update(`${line}\u001e${values.join('\u001f')}\u001d`)
    this.#last = line
  }

  /** The digest of the lines added, and the last of them. */
  value(): {line: number; sha256: string} {
    return {line: this.#last, sha256: this.#hash.copy().digest('hex')}
  }
}
