/** Which profile a command uses: --profile, GW_PROFILE, a profile from the environment alone, or the default. */
import {GwError, gwCommand, usageError} from '../errors.js'
import {isSignScheme} from '../gateway/signing.js'
import type {StandardInput} from '../io/standard-input.js'
import {checkLoadedKeys, keyLabels, readKeyArgument} from './keys.js'
import {DEFAULT_GATEWAY_ZONE} from '../gateway/protocol/index.js'
import {checkGatewayZone, normalizeBaseUrl} from './settings.js'
import {type Profile, ProfileStore} from './store.js'

const ENV_PROFILE_NAME = '(environment)'

type Env = Readonly<Record<string, string | undefined>>

const LIVE_WORDS: Record<string, boolean> = {
  '1': true,
  true: true,
  yes: true,
  on: true,
  '0': false,
  false: false,
  no: false,
  off: false,
  '': false,
}

/** GW_LIVE as a yes or a no; anything else is refused, so a live switch mistyped never passes for test. */
function liveOf(value: string | undefined): boolean {
  const word = (value ?? '').trim().toLowerCase()
  if (!Object.hasOwn(LIVE_WORDS, word))
    throw usageError(
      'GW_LIVE is not a yes or a no.',
      'Set GW_LIVE to 1, true, yes or on for a live profile; 0, false, no or off (or unset it) for a test one.',
    )
  return LIVE_WORDS[word]!
}

/** A profile defined by GW_APPID, GW_PRIVATE_KEY, GW_GATEWAY_PUBLIC_KEY and GW_BASE_URL; written nowhere. */
function environmentProfile(env: Env, stdin: StandardInput): Profile | undefined {
  if (!env.GW_APPID) return undefined
  const missing = ['GW_PRIVATE_KEY', 'GW_GATEWAY_PUBLIC_KEY', 'GW_BASE_URL'].filter((n) => !env[n])
  if (missing.length)
    throw usageError(
      `GW_APPID is set but ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not.`,
      'Set all four variables, or unset GW_APPID to use a stored profile.',
    )
  const scheme = env.GW_SIGN_SCHEME ?? 'rsa-md5'
  if (!isSignScheme(scheme)) throw usageError(`GW_SIGN_SCHEME "${scheme}" is not known.`, 'Use rsa-md5 or rsa-sha256.')
  const privateKeyPem = readKeyArgument(env.GW_PRIVATE_KEY!, 'GW_PRIVATE_KEY', stdin)
  const gatewayPublicKeyPem = readKeyArgument(env.GW_GATEWAY_PUBLIC_KEY!, 'GW_GATEWAY_PUBLIC_KEY', stdin)
  checkLoadedKeys(privateKeyPem, gatewayPublicKeyPem, keyLabels({name: ENV_PROFILE_NAME, source: 'environment'}))
  return {
    name: ENV_PROFILE_NAME,
    appid: env.GW_APPID,
    baseUrl: normalizeBaseUrl(env.GW_BASE_URL!),
    signScheme: scheme,
    live: liveOf(env.GW_LIVE),
    gatewayZone: checkGatewayZone(env.GW_GATEWAY_ZONE || DEFAULT_GATEWAY_ZONE, 'GW_GATEWAY_ZONE'),
    privateKeyPem,
    gatewayPublicKeyPem,
    source: 'environment',
    ...(env.GW_PRIVATE_KEY!.includes('-----BEGIN') ? {} : {privateKeyFile: env.GW_PRIVATE_KEY}),
  }
}

/** `--profile`, else GW_PROFILE, else the environment-only profile, else the default. */
export function resolveProfile(
  flag: string | undefined,
  store: ProfileStore,
  {env, stdin}: {env: Env; stdin: StandardInput},
): Profile {
  if (flag) return {...store.load(flag), named: true}
  const named = env.GW_PROFILE
  if (named) return store.load(named)
  const fromEnvironment = environmentProfile(env, stdin)
  if (fromEnvironment) return fromEnvironment
  const fallback = store.defaultName()
  const known = store.names()
  if (!fallback && known.length)
    throw usageError(
      `No profile is the default (there are ${known.map((name) => `"${name}"`).join(', ')}).`,
      `Pick one for this command with --profile ${known[0]}, or make it the default: ${gwCommand(undefined, 'profile', 'use', known[0]!)}`,
    )
  if (!fallback) {
    throw new GwError('usage', 'No profile is set up.', {
      advice:
        'Start the sandbox (gw sandbox start) to get a "sandbox" profile, or add yours with gw profile add (on a terminal it asks for what it needs).',
    })
  }
  return store.load(fallback)
}
