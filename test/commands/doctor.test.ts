/**
 * gw doctor and a gateway zone that is wrong (issue 46): every answer's time stamp writes the
 * gateway's offset; doctor compares it with the profile's zone and says the command that fixes it,
 * and a command that shows times warns once when an answer disagrees.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {isoTime} from '../../src/lib/gateway/protocol/index.js'
import {type GwWorld, orderCreate, startWorld} from '../helpers/gw-env.js'

let world: GwWorld
beforeAll(async () => {
  world = await startWorld({spawned: false})
})
afterAll(() => world.close())

/** The offset the sandbox (in this process) writes its time stamps at, and a zone that is never at it. */
const written = isoTime().slice(-6)
const wrongZone = written === '+14:00' ? 'Pacific/Honolulu' : 'Pacific/Kiritimati'
const wrongOffset = wrongZone === 'Pacific/Kiritimati' ? '+14:00' : '-10:00'

describe('gw doctor: the gateway zone', () => {
  it('passes when the time stamps are at the offset of the profile zone', async () => {
    const result = await world.run(['doctor'])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toMatch(/✔ gateway zone: the gateway's time stamps are at the offset of /)
    expect(result.stdout).toContain('All checks passed.')
  })

  it('says a zone that disagrees, how far the times are off, and the command that fixes it, which does', async () => {
    const added = await world.run(
      world.profileAdd('far').map((word, i, all) => (all[i - 1] === '--gateway-zone' ? wrongZone : word)),
    )
    expect(added.code, added.stderr).toBe(0)
    const result = await world.run(['doctor', '--profile', 'far'])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain(
      `! gateway zone: the gateway writes its time stamps at ${written}, but profile "far" reads its times in ${wrongZone} (${wrongOffset} then): the paid-at and refund times shown are `,
    )
    const fix = `gw profile set far --gateway-zone ${written}`
    expect(result.stdout).toContain(`its offset, as here, or its name if its clocks change (zones at ${written} now: `)
    expect(result.stdout).toContain(`: ${fix}\n`)
    expect(result.stdout).not.toContain('All checks passed.')
    expect(result.stdout).toContain('The checks passed but one needs a look: see the advice above.')
    const report = (await world.run(['doctor', '--profile', 'far', '--json'])).json<{checks: {name: string}[]}>()
    expect(report.checks.find((c) => c.name === 'gateway zone')).toMatchObject({verdict: 'warn'})

    const fixed = await world.asPrinted(fix)
    expect(fixed.code, fixed.stderr).toBe(0)
    const again = await world.run(['doctor', '--profile', 'far'])
    expect(again.stdout).toMatch(/✔ gateway zone: /)
    expect(again.stdout).toContain('All checks passed.')
    await world.run(['profile', 'remove', 'far'])
  })

  it('names the variable to set for a profile of the environment', async () => {
    const env = world.environmentProfile({GW_GATEWAY_ZONE: wrongZone})
    const result = await world.run(['doctor'], {env})
    expect(result.stdout).toContain(`: GW_GATEWAY_ZONE=${written}\n`)
  })
})

describe('a command that shows times, the gateway zone wrong', () => {
  it('warns once, however many answers disagree; never with the right zone', async () => {
    expect((await world.run(orderCreate('ZONE-1', 'wechat', '30.00'))).code).toBe(0)
    await world.pay('ZONE-1')
    const env = world.environmentProfile({GW_GATEWAY_ZONE: wrongZone})
    // A refund asks the order, refunds, and asks the refund: three answers, one warning.
    const refunded = await world.run(['refund', 'create', 'ZONE-1', '--amount', '5.00'], {env})
    expect(refunded.code, refunded.stderr).toBe(0)
    const warned = refunded.stderr.split(`the gateway writes its time stamps at ${written}`).length - 1
    expect(warned).toBe(1)
    const query = await world.run(['order', 'query', 'ZONE-1'], {env})
    expect(query.code, query.stderr).toBe(0)
    expect(query.stderr).toContain(`reads its times in ${wrongZone}`)
    expect(query.stderr).toContain(`GW_GATEWAY_ZONE=${written}`)

    const right = await world.run(['order', 'query', 'ZONE-1'])
    expect(right.code, right.stderr).toBe(0)
    expect(right.stderr).not.toContain('time stamps')
  })
})

describe('gw doctor: a base URL without the path of the operations', () => {
  it('says the path after a 404, as a command that fixes it', async () => {
    const origin = world.sandbox.info.origin
    const env = world.environmentProfile({GW_BASE_URL: origin})
    const bare = await world.run(['doctor'], {env})
    expect(bare.code).toBe(3)
    expect(bare.stdout).toContain(`GW_BASE_URL=${origin}/Gateway`)

    const added = await world.run(
      world.profileAdd('bare').map((word, i, all) => (all[i - 1] === '--base-url' ? `${origin}/` : word)),
    )
    expect(added.code, added.stderr).toBe(0)
    const result = await world.run(['doctor', '--profile', 'bare'])
    expect(result.code).toBe(3)
    const fix = `gw profile set bare --base-url ${origin}/Gateway`
    expect(result.stdout).toContain(
      `Nothing answers the operations at ${origin}: the base URL goes up to the operation's name, which the gateway serves under /Gateway (${origin}/Gateway/order_query). Give it the path: ${fix}\n`,
    )
    expect((await world.asPrinted(fix)).code).toBe(0)
    expect((await world.run(['doctor', '--profile', 'bare'])).stdout).toContain('All checks passed.')
    await world.run(['profile', 'remove', 'bare'])
  })
})
