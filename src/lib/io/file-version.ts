/**
 * Which version of a file gw read: its bytes' SHA-256, and what the system says of it (a stamp),
 * cheap to compare before and after a reading.
 */
import {createHash} from 'node:crypto'
import {createReadStream, statSync} from 'node:fs'
import {pipeline} from 'node:stream/promises'

/**
 * What the system says of a file's version: its device, inode, size and times (in nanoseconds;
 * any write changes them, a copy or a move over it too); undefined when it cannot be read.
 */
export function fileStamp(path: string): string | undefined {
  try {
    const {dev, ino, size, mtimeNs, ctimeNs} = statSync(path, {bigint: true})
    return [dev, ino, size, mtimeNs, ctimeNs].join(':')
  } catch {
    return undefined
  }
}

/** Hex SHA-256 of a file's bytes, streamed. */
export async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256')
  await pipeline(createReadStream(path), hash)
  return hash.digest('hex')
}
