/**
 * What a profile's settings may be, checked before anything is stored: its name, appid, base URL
 * (https, or plain http on loopback unless asked), sign scheme and the zone the gateway writes
 * its times in. Each refusal says the setting, what was given and what is allowed.
 */
import {usageError} from '../errors.js'
import {type SignScheme, isSignScheme} from '../gateway/signing.js'
import {DEFAULT_GATEWAY_ZONE, OPERATIONS, zoneName} from '../gateway/protocol/index.js'
import {quoted} from '../untrusted.js'

const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/
export const NAME_RULE = 'letters, digits, ".", "_" or "-", at most 64, starting with a letter or digit'

/** Whether gw would take `name` as a profile's: names reach shells (completion) and file names. */
export const isProfileName = (name: string) => NAME_PATTERN.test(name)

export function checkProfileName(name: string): void {
  if (!isProfileName(name)) throw usageError(`profile name ${quoted(name)} is not allowed.`, `Use ${NAME_RULE}.`)
}

/** A zone the gateway writes its times in, as its IANA name; anything else is refused. */
export function checkGatewayZone(value: string, source = '--gateway-zone'): string {
  const zone = zoneName(value)
  if (!zone)
    throw usageError(
      `${source} ${quoted(value)} is not a time zone.`,
      `Give the IANA name of the zone the gateway writes its times in, like ${DEFAULT_GATEWAY_ZONE} (the default) or UTC.`,
    )
  return zone
}

/** https URL, or http on loopback; returned without a trailing slash. */
export function normalizeBaseUrl(value: string): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw usageError(
      `base URL ${quoted(value)} is not a URL.`,
      'Give the address up to the operation name, like http://127.0.0.1:8787/Gateway.',
    )
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw usageError(`base URL ${quoted(value)} must start with http:// or https://.`)
  if (url.search || url.hash)
    throw usageError(`base URL ${quoted(value)} must not carry a query or fragment: parameters go in the body.`)
  // A password in the URL would be stored in profiles.json and shown by profile show and doctor.
  if (url.username || url.password)
    throw usageError(
      'base URL must not carry a user name or password (user:password@host): the gateway authenticates by signature.',
      'Give the address without them.',
    )
  const base = url.toString().replace(/\/+$/, '')
  const operation = OPERATIONS.find((op) => base.toLowerCase().endsWith(`/${op}`))
  if (operation)
    throw usageError(
      `base URL ${quoted(value)} ends in the operation /${operation}; gw adds the operation to each request.`,
      `Drop "/${operation}": give ${base.slice(0, -operation.length - 1)}.`,
    )
  return base
}

/**
 * Whether a profile sends its requests in the clear across a network: live, on plain http://, to
 * a host other than this machine (127.0.0.0/8, ::1, localhost: the sandbox, a local proxy).
 */
export function plainHttpToNetwork(baseUrl: string, live: boolean): boolean {
  const {protocol, hostname} = new URL(baseUrl)
  const loopback = hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname)
  return live && protocol === 'http:' && !loopback
}

/** The same address on https://, to suggest. */
export const httpsOf = (baseUrl: string) => baseUrl.replace(/^http:/, 'https:')

/**
 * The gateway a profile talks to, checked: its appid, its base URL, live or not, its sign scheme.
 * A live profile on plain http:// to a network host is refused unless `allowPlainHttp`, or unless
 * the profile it replaces (`replaced`) was taken so already: a later change of something else keeps it.
 */
export function checkedGateway(
  input: {appid: string; baseUrl: string; live?: boolean; signScheme?: SignScheme},
  replaced: {base_url: string; live: boolean} | undefined,
  options: {allowPlainHttp?: boolean},
): {appid: string; baseUrl: string; live: boolean; scheme: SignScheme} {
  const appid = input.appid.trim()
  if (!appid || appid.length > 32)
    throw usageError(
      `appid ${quoted(input.appid)} must be 1 to 32 characters.`,
      'The appid is the merchant number, like mch20001.',
    )
  const baseUrl = normalizeBaseUrl(input.baseUrl)
  const live = Boolean(input.live)
  const unchanged = replaced?.base_url === baseUrl && replaced.live === live
  if (plainHttpToNetwork(baseUrl, live) && !options.allowPlainHttp && !unchanged)
    throw usageError(
      `A live profile on plain http:// to ${new URL(baseUrl).host} is refused: its requests, amounts and the gateway's answers would cross the network unencrypted.`,
      `Give the gateway's https:// address (--base-url ${httpsOf(baseUrl)}), or, if this gateway is truly reached over plain HTTP (a private line), add --allow-plain-http.`,
    )
  const scheme = input.signScheme ?? 'rsa-md5'
  if (!isSignScheme(scheme))
    throw usageError(`sign scheme ${quoted(scheme)} is not known.`, 'Use rsa-md5 or rsa-sha256.')
  return {appid, baseUrl, live, scheme}
}
