import {describe, expect, it} from 'vitest'

import {isItself} from '../../src/lib/cli/listening.js'

describe('a forward that would loop', () => {
  const itself = (url: string, host: string, port = '8788') => isItself(new URL(url), host, port)

  it('is the listener named by its own address, by localhost, or by loopback when it listens everywhere', () => {
    expect(itself('http://127.0.0.1:8788/x', '127.0.0.1')).toBe(true)
    expect(itself('http://localhost:8788/x', '127.0.0.1')).toBe(true)
    expect(itself('http://[::1]:8788/x', '::1')).toBe(true)
    expect(itself('http://127.0.0.1:8788/x', '0.0.0.0')).toBe(true)
    expect(itself('http://localhost:80/x', '127.0.0.1', '80')).toBe(true)
    expect(itself('http://localhost/x', '127.0.0.1', '80')).toBe(true)
  })

  it('is not another server: another port, or the other loopback family', () => {
    expect(itself('http://127.0.0.1:3000/x', '127.0.0.1')).toBe(false)
    expect(itself('http://127.0.0.1:8788/x', '::1')).toBe(false)
    expect(itself('https://127.0.0.1/x', '127.0.0.1')).toBe(false)
  })
})
