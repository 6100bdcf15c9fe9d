import {describe, expect, it} from 'vitest'

import {faultSpec, latencyOf, parseFaults, strikes} from '../../src/sandbox/faults.js'

describe('sandbox faults', () => {
  it('limits a rate or a latency to one operation with @', () => {
    const faults = parseFaults('http-500=1@order_refund, latency=40-40ms@order_query')
    expect(strikes(faults, 'http-500', 'order_refund')).toBe(true)
    expect(strikes(faults, 'http-500', 'native_pay')).toBe(false)
    expect(latencyOf(faults, 'order_query')).toBe(40)
    expect(latencyOf(faults, 'order_refund')).toBe(0)
    expect(latencyOf(parseFaults('latency=5ms'), 'native_pay')).toBe(5)
  })

  it('takes short names of operations, and writes a spec it reads back', () => {
    const faults = parseFaults('drop-after-commit=0.1,latency=50-150ms@refund,http-500=1@close')
    expect(faults.latency).toEqual({min: 50, max: 150, operation: 'order_refund'})
    expect(strikes(faults, 'http-500', 'order_close')).toBe(true)
    const spec = faultSpec(faults)
    expect(spec).toBe('drop-after-commit=0.1,http-500=1@order_close,latency=50-150ms@order_refund')
    expect(parseFaults(spec)).toEqual(faults)
    expect(faultSpec(parseFaults(''))).toBe('')
  })

  it('refuses what it cannot read, saying what is allowed', () => {
    expect(() => parseFaults('latency=fast')).toThrow('must look like 50-300ms')
    expect(() => parseFaults('latency=10ms@refunds')).toThrow('"refunds" is not an operation')
    expect(() => parseFaults('latency=9999999999ms')).toThrow('must look like 50-300ms')
    expect(() => parseFaults('latency=300-50ms')).toThrow('the maximum is below the minimum')
    expect(() => parseFaults('http-500=2')).toThrow('the rate must be a number from 0 to 1')
    expect(() => parseFaults('meteor=0.1')).toThrow('unknown fault "meteor"')
  })
})
