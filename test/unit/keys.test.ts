import {describe, expect, it} from 'vitest'

import {readKeyArgument} from '../../src/lib/profiles/keys.js'

describe('a key given as a flag or a variable', () => {
  it('quotes back a value that is plainly a path', () => {
    expect(() => readKeyArgument('/no/such/key.pem', 'GW_PRIVATE_KEY')).toThrow(
      'GW_PRIVATE_KEY: there is no file "/no/such/key.pem".',
    )
    expect(() => readKeyArgument('./keys/mch.pem', '--private-key')).toThrow('there is no file "./keys/mch.pem"')
  })

  it('never quotes a value that may be key material', () => {
    const body = `MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC${'x'.repeat(300)}/abc+def==`
    for (const value of [
      body,
      `/${body}`,
      'MIIEvQIBADANBgkqhkiG9w0BAQEFAAS',
      `${body.slice(0, 60)}\n${body.slice(60)}`,
    ]) {
      let message = ''
      try {
        readKeyArgument(value, 'GW_PRIVATE_KEY')
      } catch (error) {
        message = `${(error as Error).message} ${(error as {advice?: string}).advice}`
      }
      expect(message).toContain('GW_PRIVATE_KEY is neither PEM text nor the path of a file that exists')
      expect(message).not.toContain(value.slice(0, 20))
    }
  })
})
