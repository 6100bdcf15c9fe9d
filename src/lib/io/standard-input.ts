/**
 * A command's standard input read whole, for what a user gives as `-` (a key, a parameters file,
 * a body to verify): CommandIO's stdin, by its file descriptor (a process's 0, a test's own), read
 * once a command. Node leaves a pipe's descriptor non-blocking, so a writer that has not written
 * yet (`pass show shop/key | gw …`, where gpg asks for a passphrase first) is waited for, not
 * taken for an error.
 */
import {readSync} from 'node:fs'

import {usageError} from '../errors.js'

/** Standard input as a command has it: a terminal or not, and its file descriptor. */
export type StandardInput = {isTTY?: boolean; fd?: number | null}

/** The inputs read already, each with what took it. */
const taken = new WeakMap<StandardInput, string>()
const WAIT = new Int32Array(new SharedArrayBuffer(4))

/** The text of `stdin` to its end, for `what` (`--private-key`); refused when something took it already. */
export function standardInputText(stdin: StandardInput, what: string): string {
  const earlier = taken.get(stdin)
  if (earlier !== undefined)
    throw usageError(`${what} -: standard input was read already for ${earlier}; one input at most comes from it.`)
  if (typeof stdin.fd !== 'number') throw usageError(`${what} -: this command has no standard input to read.`)
  taken.set(stdin, what)
  const chunks: Buffer[] = []
  const buffer = Buffer.alloc(64 * 1024)
  for (;;) {
    let read: number
    try {
      read = readSync(stdin.fd, buffer)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error
      Atomics.wait(WAIT, 0, 0, 20)
      continue
    }
    if (read === 0) break
    chunks.push(Buffer.from(buffer.subarray(0, read)))
  }
  return Buffer.concat(chunks).toString('utf8')
}
