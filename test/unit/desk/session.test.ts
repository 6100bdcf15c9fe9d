/** Who may use the desk: the run's secret or a code used once opens a session; a form's token posts to its own action only. */
import {describe, expect, it} from 'vitest'

import {DeskSessions} from '../../../src/lib/desk/session.js'

describe('DeskSessions', () => {
  it('opens a session for the secret, every time, and for an opening code once', () => {
    const sessions = new DeskSessions()
    expect(sessions.secret).toMatch(/^[0-9a-f]{64}$/)
    expect(sessions.open(sessions.secret)).toBeDefined()
    expect(sessions.open(sessions.secret)).toBeDefined()
    const code = sessions.openCode()
    expect(sessions.open(code)).toBeDefined()
    expect(sessions.open(code)).toBeUndefined()
    expect(sessions.open('')).toBeUndefined()
    expect(sessions.open(sessions.secret.slice(1))).toBeUndefined()
  })

  it("knows a session by its cookie, HttpOnly and SameSite=Strict; another run's cookie is none of its", () => {
    const sessions = new DeskSessions()
    const {id} = sessions.open(sessions.secret)!
    const cookie = sessions.cookie(id).split(';')[0]!
    expect(sessions.cookie(id)).toMatch(/; Path=\/; HttpOnly; SameSite=Strict$/)
    expect(sessions.of(`theme=dark; ${cookie}`)).toBeDefined()
    expect(sessions.of(undefined)).toBeUndefined()
    expect(new DeskSessions().of(cookie)).toBeUndefined()
    const another = `${id.slice(0, -1)}${id.endsWith('0') ? '1' : '0'}`
    expect(sessions.of(`${sessions.cookieName}=${another}`)).toBeUndefined()
  })

  it("takes a form's token for the action it was given for, and for no other", () => {
    const sessions = new DeskSessions()
    const {session} = sessions.open(sessions.secret)!
    const token = session.tokenFor('/refund/new')
    expect(session.allows(token, '/refund/new')).toBe(true)
    expect(session.allows(token, '/refund/abc/send')).toBe(false)
    expect(session.allows(undefined, '/refund/new')).toBe(false)
    const other = sessions.open(sessions.secret)!.session
    expect(other.allows(token, '/refund/new')).toBe(false)
  })
})
