/**
 * A gateway writing its time stamps at another offset than the zone its profile reads its times
 * in: every paid-at and refund time shown is off by the difference. What that means, and the
 * command that sets the profile right (gw doctor's check, and the warning of a command that
 * shows times).
 */
import {gwCommand} from '../errors.js'
import type {ZoneDisagreement} from '../gateway/protocol/index.js'
import {plural} from '../plural.js'
import type {Profile} from './store.js'

/** Named zones said at most: the command names the offset itself, which is exact. */
const ZONES_SAID = 8

const howFar = (minutes: number) => {
  const abs = Math.abs(minutes)
  return abs % 60 ? plural(abs, 'minute') : plural(abs / 60, 'hour')
}

export function wrongZone(
  profile: Pick<Profile, 'name' | 'source'>,
  disagreement: ZoneDisagreement,
): {detail: string; advice: string} {
  const {written, zone, zoneOffset, minutesOff, zonesAtWritten} = disagreement
  const named = zonesAtWritten.slice(0, ZONES_SAID)
  const more = zonesAtWritten.length > named.length ? ', ...' : ''
  const fix =
    profile.source === 'store'
      ? gwCommand(undefined, 'profile', 'set', profile.name, '--gateway-zone', written)
      : `GW_GATEWAY_ZONE=${written}`
  return {
    detail: `the gateway writes its time stamps at ${written}, but profile "${profile.name}" reads its times in ${zone} (${zoneOffset} then): the paid-at and refund times shown are ${howFar(minutesOff)} ${minutesOff > 0 ? 'later' : 'earlier'} than they were`,
    advice: `Give the profile the zone the gateway writes in: its offset, as here, or its name if its clocks change${named.length ? ` (zones at ${written} now: ${named.join(', ')}${more})` : ''}: ${fix}`,
  }
}
