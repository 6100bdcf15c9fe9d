/**
 * The control API of the sandbox a profile points at, for the commands that act on it (gw
 * sandbox pay, notify, seed): refused before anything is asked unless the origin says it is
 * gw's sandbox, so a real gateway never receives a practice order; a sandbox that does not
 * answer said in words.
 */
import {GwError, usageError} from '../../lib/errors.js'
import type {Profile} from '../../lib/profiles/store.js'
import type {SandboxControl} from '../../sandbox/control-client.js'

/** Runs calls on the profile's sandbox, each failing to connect as a transport error (exit 3). */
type SandboxCalls = <T>(call: (control: SandboxControl) => Promise<T>) => Promise<T>

export async function sandboxOf(profile: Profile): Promise<SandboxCalls> {
  const origin = new URL(profile.baseUrl).origin
  const {SandboxControl} = await import('../../sandbox/control-client.js')
  const control = new SandboxControl(origin)
  const calls: SandboxCalls = (call) =>
    call(control).catch((error: Error) => {
      if (error instanceof GwError) throw error
      throw new GwError(
        'transport',
        `cannot reach the sandbox at ${origin}: ${(error.cause as Error | undefined)?.message ?? error.message}.`,
        {advice: 'Start it with gw sandbox start, or pick its profile with --profile.'},
      )
    })
  if (!(await calls((c) => c.isSandbox())))
    throw usageError(
      `${origin} is not gw sandbox (it does not answer /sandbox/health as the sandbox does): nothing was sent.`,
      'This works only against gw sandbox start; pick its profile with --profile.',
    )
  return calls
}
