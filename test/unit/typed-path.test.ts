/** A file's path typed at a question, where no shell reads it: ~ is the home folder, a dropped file's quotes go. */
import {homedir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {typedPath} from '../../src/lib/paths.js'

describe('a path typed at a question', () => {
  it('reads ~ and ~/ as the home folder, and takes off the quotes of a file dropped on the terminal', () => {
    expect(typedPath('~/keys/my.pem')).toBe(join(homedir(), 'keys', 'my.pem'))
    expect(typedPath(' ~ ')).toBe(homedir())
    expect(typedPath("'/Users/me/My Keys/my.pem'")).toBe('/Users/me/My Keys/my.pem')
    expect(typedPath('"~/my.pem"')).toBe(join(homedir(), 'my.pem'))
  })

  it('leaves any other path as it is: ~other, a ~ inside, a relative one', () => {
    for (const path of ['~other/my.pem', 'keys/~/my.pem', 'my.pem', '/etc/~', '-']) expect(typedPath(path)).toBe(path)
  })
})
