import {describe, expect, it} from 'vitest'

import {type CompletableCommand, FILES, candidates} from '../../src/lib/cli/completion.js'

const commands: CompletableCommand[] = [
  {
    id: 'order:create',
    flags: {
      channel: {type: 'option', options: ['wechat', 'alipay', 'promptpay']},
      'fee-type': {type: 'option', options: ['THB', 'JPY']},
      profile: {type: 'option', char: 'p'},
      'qr-out': {type: 'option'},
      wait: {type: 'boolean'},
      secret: {type: 'boolean', hidden: true},
    },
  },
  {id: 'order:query', flags: {}},
  {id: 'reconcile', flags: {out: {type: 'option'}}},
  {id: 'internal', hidden: true, flags: {}},
]
const complete = (...words: string[]) => candidates(words, commands, () => ['live-shop', 'sandbox'])

describe('completion', () => {
  it('completes topics, then their commands, from what is typed; never hidden ones', () => {
    expect(complete('')).toEqual(['order', 'reconcile'])
    expect(complete('or')).toEqual(['order'])
    expect(complete('order', '')).toEqual(['create', 'query'])
  })

  it('completes the values of a flag: its choices, the stored profiles, or files for a path', () => {
    expect(complete('order', 'create', '--channel', '')).toEqual(['wechat', 'alipay', 'promptpay'])
    expect(complete('order', 'create', '--channel', 'p')).toEqual(['promptpay'])
    expect(complete('order', 'create', '-p', 'li')).toEqual(['live-shop'])
    expect(complete('order', 'create', '--qr-out', 'q')).toEqual([FILES])
    expect(complete('reconcile', 'ex')).toEqual([FILES])
  })

  it('completes the flags of the command, not the hidden ones', () => {
    expect(complete('order', 'create', '--')).toEqual(['--channel', '--fee-type', '--profile', '--qr-out', '--wait'])
    expect(complete('order', 'create', '--wait', '--f')).toEqual(['--fee-type'])
  })
})
