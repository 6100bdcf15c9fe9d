/**
 * The credentials smoke test: one line per check, each with a verdict and advice. The
 * decisive check is a signed order query for an order number that cannot exist: the answer
 * GW_INVALID_ORDER_NO proves appid and signature are accepted, and its verified signature
 * proves the gateway key is right.
 */
import {randomBytes} from 'node:crypto'
import {connect} from 'node:net'

import {type ClientOptions, GatewayClient} from '../gateway/client.js'
import {EXIT_CODES, type ExitCode, GwError, type Outcome, gwCommand, isStopped, shellWord} from '../errors.js'
import {ORDER_NOT_FOUND, writtenOffset, zoneDisagreement} from '../gateway/protocol/index.js'
import {checkKeys, loosePrivateFiles, replaceKey} from './keys.js'
import {keyPassphrase} from './passphrase.js'
import {httpsOf, plainHttpToNetwork} from './settings.js'
import type {Profile} from './store.js'
import {wrongZone} from './zone.js'

type CheckMark = 'pass' | 'warn' | 'fail' | 'skip'

export interface Check {
  name: string
  verdict: CheckMark
  detail: string
  advice?: string
}

export interface DoctorReport {
  profile: string | null
  checks: Check[]
  ok: boolean
  /** How the check ends, and its exit code (0 only when every check passes). */
  outcome: Outcome
  exit_code: ExitCode
}

const CLOCK_TOLERANCE_SECONDS = 300

function tcpConnect(url: URL, timeoutMs: number): Promise<number> {
  const started = performance.now()
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80))
  return new Promise((resolve, reject) => {
    const socket = connect({host: url.hostname.replace(/^\[|\]$/g, ''), port, timeout: timeoutMs})
    socket.once('connect', () => {
      socket.destroy()
      resolve(performance.now() - started)
    })
    socket.once('timeout', () => {
      socket.destroy()
      reject(new Error(`no connection within ${timeoutMs} ms`))
    })
    socket.once('error', (error) => reject(error))
  })
}

/**
 * Our signature refused: the key is not the one registered, or the gateway expects the other
 * scheme. The key's public half, to compare with the platform's, and the other scheme, each a
 * command to paste.
 */
function signatureRefused(profile: Profile): string {
  const other = profile.signScheme === 'rsa-md5' ? 'rsa-sha256' : 'rsa-md5'
  const scheme =
    profile.source === 'store'
      ? gwCommand(undefined, 'profile', 'set', profile.name, '--sign-scheme', other)
      : `GW_SIGN_SCHEME=${other}`
  const key = profile.privateKeyFile
    ? ` Its public half, to compare with the one the merchant platform shows for ${profile.appid}: openssl pkey -pubout -in ${shellWord(profile.privateKeyFile)}`
    : ''
  return `The gateway rejected our signature: the private key is not the one registered for ${profile.appid} (give the right one: ${replaceKey(profile, 'private')}), or the gateway expects the other sign scheme: ${scheme}.${key}`
}

const DIAGNOSIS: Record<string, string> = {
  GW_INVALID_MCHINFO:
    'The gateway does not know this appid: check it, and that the base URL is the gateway this merchant belongs to.',
  APPID_NOT_EXIST:
    'The gateway does not know this appid: check it, and that the base URL is the gateway this merchant belongs to.',
  NOAUTH: 'The merchant has no access to the order query: ask the vendor to enable the API for this account.',
}

const SIGNATURE_REFUSED = new Set(['GW_SIGN_ERROR', 'SIGNERROR'])

/** The path the gateway serves its operations under (the API document's, and the sandbox's). */
const OPERATIONS_PATH = '/Gateway'

/**
 * HTTP 404 for the operation: the base URL names no path the operations are under. A base URL
 * without /Gateway is said with the one that has it, as a command to paste.
 */
function noOperationThere(profile: Profile): string | undefined {
  const url = new URL(profile.baseUrl)
  if (url.pathname.replace(/\/+$/, '').endsWith(OPERATIONS_PATH)) return undefined
  const withPath = `${url.origin}${url.pathname.replace(/\/+$/, '')}${OPERATIONS_PATH}`
  const fix =
    profile.source === 'store'
      ? gwCommand(undefined, 'profile', 'set', profile.name, '--base-url', withPath)
      : `GW_BASE_URL=${withPath}`
  return `Nothing answers the operations at ${profile.baseUrl}: the base URL goes up to the operation's name, which the gateway serves under ${OPERATIONS_PATH} (${withPath}/order_query). Give it the path: ${fix}`
}

/** Where to look when the gateway cannot be reached: the sandbox only for a test profile on this machine. */
function unreachableAdvice(profile: Profile, url: URL): string {
  if (profile.live)
    return `Check the base URL of the profile (${profile.baseUrl}) and this machine's way to it: the network, a proxy or firewall between (the gateway may have to allow this machine's address).`
  const local = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)
  return local
    ? 'Check the base URL of the profile, and that the sandbox (gw sandbox start) or the gateway it names is running.'
    : 'Check the base URL of the profile and the network.'
}

/** `trace`: the signed request and its answer, for --verbose. */
export async function runDoctor(
  loadProfile: () => Profile | Promise<Profile>,
  timeoutMs: number,
  trace?: ClientOptions['trace'],
): Promise<DoctorReport> {
  const checks: Check[] = []
  const finish = (profile: string | null, outcome: Outcome): DoctorReport => ({
    profile,
    checks,
    ok: outcome === 'done',
    outcome,
    exit_code: EXIT_CODES[outcome],
  })
  let profile: Profile
  try {
    profile = await loadProfile()
    checks.push({
      name: 'profile',
      verdict: 'pass',
      detail: `"${profile.name}": ${profile.appid} at ${profile.baseUrl} (${profile.live ? 'LIVE' : 'test'}, ${profile.signScheme})`,
    })
  } catch (error) {
    // Stopped at the passphrase's question: the doctor is stopped, no check failed.
    if (isStopped(error)) throw error
    const gw = error instanceof GwError ? error : undefined
    checks.push({name: 'profile', verdict: 'fail', detail: (error as Error).message, advice: gw?.advice})
    return finish(null, 'usage')
  }

  const stop =
    keysChecked(profile, checks) ??
    httpsChecked(profile, checks) ??
    (await reachableChecked(profile, checks, timeoutMs))
  return finish(profile.name, stop ?? (await probeChecked(profile, checks, timeoutMs, trace)))
}

/** The keys (parsed, their sizes) and the store's files (private): an outcome that stops the doctor, else undefined. */
function keysChecked(profile: Profile, checks: Check[]): Outcome | undefined {
  try {
    const keys = checkKeys(profile.privateKeyPem, profile.gatewayPublicKeyPem)
    checks.push({
      name: 'private key',
      verdict: keys.privateKey.bits < 2048 ? 'warn' : 'pass',
      detail: `RSA ${keys.privateKey.bits} bits, fingerprint ${keys.privateKey.fingerprint}`,
      advice:
        keys.privateKey.bits < 2048 ? 'Keys under 2048 bits are weak; ask the vendor for a larger one.' : undefined,
    })
    checks.push({
      name: 'gateway key',
      verdict: 'pass',
      detail: `RSA ${keys.gatewayKey.bits} bits, fingerprint ${keys.gatewayKey.fingerprint}`,
    })
  } catch (error) {
    checks.push({name: 'keys', verdict: 'fail', detail: (error as Error).message, advice: (error as GwError).advice})
    return 'usage'
  }

  const loose = loosePrivateFiles(profile.files ?? [])
  if (profile.files) {
    const listed = loose.map((f) => `${f.path} (${f.mode})`).join(', ')
    checks.push(
      loose.length
        ? {
            name: 'store files',
            verdict: 'warn',
            detail: `readable by others than you: ${listed}`,
            advice: `Make them private: chmod 700 for folders, 600 for files (${loose.map((f) => f.path).join(' ')}).`,
          }
        : {name: 'store files', verdict: 'pass', detail: 'the profile store and its keys can be read by you only'},
    )
  }

  return undefined
}

/** A live profile on plain http:// to another machine: nothing is sent, as a signed request would cross the network in the clear. */
function httpsChecked(profile: Profile, checks: Check[]): Outcome | undefined {
  // Said only when it fails; then nothing is sent: a signed request would cross the network in the clear.
  if (plainHttpToNetwork(profile.baseUrl, profile.live)) {
    checks.push({
      name: 'https',
      verdict: 'fail',
      detail: `a live profile sending to ${new URL(profile.baseUrl).host} over plain http://: requests, amounts and answers cross the network unencrypted`,
      advice: `Use the gateway's https:// address: ${
        profile.source === 'store'
          ? gwCommand(undefined, 'profile', 'set', profile.name, '--base-url', httpsOf(profile.baseUrl))
          : `GW_BASE_URL=${httpsOf(profile.baseUrl)}`
      }`,
    })
    return 'usage'
  }
  return undefined
}

/** The gateway's address accepts connections: else the doctor stops, said with where to look. */
async function reachableChecked(profile: Profile, checks: Check[], timeoutMs: number): Promise<Outcome | undefined> {
  const url = new URL(profile.baseUrl)
  try {
    const ms = await tcpConnect(url, Math.min(timeoutMs, 5000))
    checks.push({
      name: 'reachable',
      verdict: 'pass',
      detail: `${url.host} accepts connections (${ms.toFixed(0)} ms to connect)`,
    })
  } catch (error) {
    checks.push({
      name: 'reachable',
      verdict: 'fail',
      detail: `${url.host}: ${(error as Error).message}`,
      advice: unreachableAdvice(profile, url),
    })
    return 'transport'
  }

  return undefined
}

/**
 * One signed order query for a number that cannot exist: GW_INVALID_ORDER_NO means appid and
 * signature are accepted, a verified answer that the gateway key is right; the gateway's clock too.
 * `trace`: the signed request and its answer, for --verbose.
 */
async function probeChecked(
  profile: Profile,
  checks: Check[],
  timeoutMs: number,
  trace?: ClientOptions['trace'],
): Promise<Outcome> {
  const client = new GatewayClient(profile, {timeoutMs, attempts: 1, trace, keyPassphrase: keyPassphrase()})
  const probe = `GW-DOCTOR-${randomBytes(6).toString('hex')}`
  let outcome: Outcome = 'done'
  try {
    const answer = await client.call('order_query', {mch_order_no: probe, channel: 'wechat'})
    if (answer.status === 'refused' && answer.code === ORDER_NOT_FOUND) {
      checks.push({
        name: 'signed request',
        verdict: 'pass',
        detail: `a signed order query for ${probe} was accepted (GW_INVALID_ORDER_NO, as expected): appid and signature are good`,
      })
      checks.push({
        name: 'answer signature',
        verdict: 'pass',
        detail: 'the answer verifies with the gateway public key',
      })
    } else if (answer.status === 'refused') {
      checks.push({
        name: 'signed request',
        verdict: 'fail',
        detail: `the gateway answered ${answer.code}${answer.message ? ` ("${answer.message}")` : ''}`,
        advice: SIGNATURE_REFUSED.has(answer.code)
          ? signatureRefused(profile)
          : (DIAGNOSIS[answer.code] ?? answer.explanation),
      })
      checks.push({
        name: 'answer signature',
        verdict: 'pass',
        detail: 'the answer verifies with the gateway public key',
      })
      outcome = 'refused'
    } else {
      checks.push({
        name: 'signed request',
        verdict: 'warn',
        detail: `unexpected answer to a probe order query (${answer.status === 'success' ? `an order ${probe} exists` : answer.message})`,
      })
      outcome = 'refused'
    }
    if (answer.status !== 'uncertain' && 'gatewayTime' in answer) {
      checkClock(checks, answer.gatewayTime)
      checkZone(checks, answer.gatewayTime, profile)
    }
  } catch (error) {
    const gw = error instanceof GwError ? error : new GwError('transport', (error as Error).message)
    if (gw.kind === 'signature') {
      checks.push({name: 'signed request', verdict: 'skip', detail: 'an answer came, but it cannot be trusted'})
      checks.push({
        name: 'answer signature',
        verdict: 'fail',
        detail: gw.message,
        advice: `The gateway public key of the profile is not the gateway's: get the current one from the merchant platform and give it: ${replaceKey(profile, 'gateway')}.`,
      })
    } else {
      const advice = gw.details?.http_status === 404 ? noOperationThere(profile) : undefined
      checks.push({name: 'signed request', verdict: 'fail', detail: gw.message, advice: advice ?? gw.advice})
    }
    outcome = gw.kind
  }
  return outcome
}

/** The offset the gateway's time stamp writes against the profile's zone; skipped when it writes none. */
function checkZone(checks: Check[], gatewayTime: string | undefined, profile: Profile): void {
  const name = 'gateway zone'
  const zone = profile.gatewayZone
  const disagreement = zoneDisagreement(gatewayTime, zone)
  if (disagreement) checks.push({name, verdict: 'warn', ...wrongZone(profile, disagreement)})
  else if (writtenOffset(gatewayTime))
    checks.push({name, verdict: 'pass', detail: `the gateway's time stamps are at the offset of ${zone}`})
  else
    checks.push({
      name,
      verdict: 'skip',
      detail: `the gateway's time stamp writes no offset: that its times are in ${zone} cannot be checked`,
    })
}

function checkClock(checks: Check[], gatewayTime: string | undefined): void {
  const parsed = gatewayTime ? Date.parse(gatewayTime) : Number.NaN
  if (Number.isNaN(parsed)) {
    checks.push({
      name: 'clock',
      verdict: 'skip',
      detail: `the gateway's time stamp (${gatewayTime || 'none'}) is not a date gw can compare`,
    })
    return
  }
  const skew = Math.round((Date.now() - parsed) / 1000)
  checks.push(
    Math.abs(skew) > CLOCK_TOLERANCE_SECONDS
      ? {
          name: 'clock',
          verdict: 'warn',
          detail: `this machine's clock is ${Math.abs(skew)} s ${skew > 0 ? 'ahead of' : 'behind'} the gateway's`,
          advice: 'Set the clock right (NTP): request time stamps are local time.',
        }
      : {name: 'clock', verdict: 'pass', detail: `within ${Math.max(1, Math.abs(skew))} s of the gateway's`},
  )
}
