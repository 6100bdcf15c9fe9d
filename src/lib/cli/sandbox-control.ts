/**
 * The control API of the sandbox a profile points at, for the commands that act on it (gw
 * sandbox pay, gw sandbox notify): a sandbox that does not answer, or a gateway that is not
 * gw's sandbox, said in words.
 */
import {GwError, usageError} from '../errors.js'
import type {Profile} from '../profiles/store.js'
import type {SandboxControl} from '../../sandbox/control-client.js'

export async function sandboxCall<T extends {error?: string}>(
  profile: Profile,
  call: (control: SandboxControl) => Promise<{status: number; body: T}>,
): Promise<{status: number; body: T}> {
  const origin = new URL(profile.baseUrl).origin
  const {SandboxControl} = await import('../../sandbox/control-client.js')
  const answer = await call(new SandboxControl(origin)).catch((error: Error) => {
    throw new GwError(
      'transport',
      `cannot reach the sandbox at ${origin}: ${(error.cause as Error | undefined)?.message ?? error.message}.`,
      {advice: 'Start it with gw sandbox start, or pick its profile with --profile.'},
    )
  })
  if (answer.status === 404 && !answer.body.error?.startsWith('no order'))
    throw usageError(`${origin} has no sandbox control API: this works only against gw sandbox.`)
  return answer
}
