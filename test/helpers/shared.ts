import {readFileSync} from 'node:fs'
import {dirname, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

/** `../shared` beside the repository, as CI lays it out. */
export const SHARED_DIR = process.env.GW_SHARED_DIR ?? resolve(REPO_ROOT, '..', 'shared')

export function readShared<T>(relative: string): T {
  return JSON.parse(readFileSync(resolve(SHARED_DIR, relative), 'utf8')) as T
}
