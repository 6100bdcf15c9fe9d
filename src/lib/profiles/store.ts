/**
 * The profile store: name -> appid, base URL, keys, sign scheme, live flag, and which
 * profile is the default. One JSON file (0600, written atomically) in the config dir (0700),
 * changed only under its lock; the keys are copied into files of their own beside it (0600),
 * never printed.
 *
 * Not `conf`, as the first design named (docs/design.md): its atomic writer hooks SIGINT and SIGTERM and raises
 * them again, which ends a bulk refund's graceful Ctrl-C at once.
 */
import {randomBytes} from 'node:crypto'
import {existsSync, readFileSync, rmSync, statSync} from 'node:fs'
import {dirname, join} from 'node:path'

import * as z from 'zod/mini'

import {GwError, gwCommand, usageError} from '../errors.js'
import type {SignScheme} from '../gateway/signing.js'
import type {GatewayProfile} from '../gateway/client.js'
import {DEFAULT_GATEWAY_ZONE, zoneName} from '../gateway/protocol/index.js'
import {LockHeld, holdLock} from '../io/lock.js'
import {ensurePrivateDir, notOurs, refuseSharedFolder, writePrivateFile} from '../io/private-file.js'
import {OWN_CONFIG_DIR, configDir} from '../paths.js'
import {quoted} from '../untrusted.js'
import {type KeyCheck, checkKeys, checkLoadedKeys, keyLabels, replaceKey} from './keys.js'
import {
  NAME_RULE,
  checkGatewayZone,
  checkProfileName,
  checkedGateway,
  isProfileName,
  normalizeBaseUrl,
} from './settings.js'

interface StoredProfile {
  appid: string
  base_url: string
  private_key_file: string
  gateway_public_key_file: string
  sign_scheme: SignScheme
  live: boolean
  gateway_zone?: string
}

const storeSchema = z.object({
  default: z.optional(z.string()),
  profiles: z.record(
    z.string(),
    z.object({
      appid: z.string(),
      base_url: z.string(),
      private_key_file: z.string(),
      gateway_public_key_file: z.string(),
      sign_scheme: z.enum(['rsa-md5', 'rsa-sha256']),
      live: z.boolean(),
      // Stores written before profiles knew it have none: the gateway's default.
      gateway_zone: z.optional(z.string()),
    }),
  ),
})
type StoreShape = z.infer<typeof storeSchema>

/** A profile ready to use: keys read. `source` says where it came from. */
export interface Profile extends GatewayProfile {
  source: 'store' | 'environment'
  /** Where the private key was read from, when it was a file (named in advice about an encrypted key). */
  privateKeyFile?: string
  /** For a stored profile: the folders and files that hold it, which only its owner may read. */
  files?: string[]
}

interface ProfileInput {
  name: string
  appid: string
  baseUrl: string
  privateKeyPem: string
  gatewayPublicKeyPem: string
  signScheme?: SignScheme
  live?: boolean
  gatewayZone?: string
}

/** The stored profile of that name: its own, never one of an object's built-ins ("constructor"). */
const own = (data: StoreShape, name: string): StoredProfile | undefined =>
  Object.hasOwn(data.profiles, name) ? data.profiles[name] : undefined

function removeKeys(profile: Pick<StoredProfile, 'private_key_file' | 'gateway_public_key_file'>): void {
  rmSync(profile.private_key_file, {force: true})
  rmSync(profile.gateway_public_key_file, {force: true})
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'))
  } catch {
    return undefined
  }
}

export class ProfileStore {
  readonly dir: string
  readonly path: string
  #data?: StoreShape

  constructor(dir = configDir()) {
    this.dir = dir
    this.path = join(dir, 'profiles.json')
  }

  get #store(): StoreShape {
    this.#data ??= this.#read()
    return this.#data
  }

  /**
   * The store as on disk, held to what `add` writes: a file edited by hand is checked as a new
   * profile is. The config folder is checked before anything in it is read (ensurePrivateDir), and
   * a store another user could have written (theirs, or writable by others) is refused.
   */
  #read(): StoreShape {
    if (!existsSync(this.path)) return {profiles: {}}
    ensurePrivateDir(this.dir, OWN_CONFIG_DIR)
    // Followed through a link (a dotfile manager's): the file it is must be this user's.
    const foreign = notOurs(statSync(this.path))
    if (foreign)
      throw usageError(
        `The profile store ${this.path} is not used: ${foreign}.`,
        'Move it aside and add your profiles again (gw profile add), or use a config dir of your own (GW_CONFIG_DIR).',
      )
    const raw = readJson(this.path) as {profiles?: unknown} | undefined
    const damaged = (why: string) =>
      usageError(
        `The profile store ${this.path} ${why}.`,
        'Correct it there, or move it aside and add the profiles again (gw profile add).',
      )
    // Names reach shells (completion) and file names: only names gw itself would accept, read
    // before zod, which would take "__proto__" as the record's prototype and drop the profile.
    const names = raw?.profiles && typeof raw.profiles === 'object' ? Object.keys(raw.profiles) : []
    const strange = names.find((name) => !isProfileName(name))
    if (strange !== undefined)
      throw damaged(`holds a profile named ${quoted(strange)}, which is not a profile name (${NAME_RULE})`)
    const parsed = storeSchema.safeParse(raw)
    if (!parsed.success) throw damaged('is damaged')
    for (const [name, profile] of Object.entries(parsed.data.profiles)) {
      try {
        normalizeBaseUrl(profile.base_url)
      } catch {
        // Not repeated: it may hold a password.
        throw damaged(
          `gives profile "${name}" a base URL gw would not accept (http or https, no user name or password, no query)`,
        )
      }
    }
    return parsed.data
  }

  /**
   * Read, change and write the store under its lock, from what is on disk at that moment:
   * two gw processes changing profiles at once both keep their change.
   */
  #update(change: (data: StoreShape) => StoreShape): void {
    ensurePrivateDir(this.dir, OWN_CONFIG_DIR)
    let lock
    try {
      lock = holdLock(`${this.path}.lock`, {waitMs: 10_000})
    } catch (error) {
      if (!(error instanceof LockHeld)) throw error
      throw new GwError('transport', `The profile store is busy: ${error.message}.`, {advice: 'Try again in a moment.'})
    }
    try {
      const data = change(this.#read())
      writePrivateFile(this.path, `${JSON.stringify(data, null, 2)}\n`)
      this.#data = data
    } finally {
      lock.release()
    }
  }

  names(): string[] {
    return Object.keys(this.#store.profiles).sort()
  }

  defaultName(): string | undefined {
    const name = this.#store.default
    return name && own(this.#store, name) ? name : undefined
  }

  stored(name: string): StoredProfile | undefined {
    return own(this.#store, name)
  }

  /**
   * The gateways the stored profiles of an appid talk to (base URL and gateway key), for the
   * history to know which records of earlier versions are certain to be whose. A profile whose
   * gateway key cannot be read is left out.
   */
  gatewaysOf(appid: string): {appid: string; baseUrl: string; gatewayPublicKeyPem: string}[] {
    return Object.values(this.#store.profiles).flatMap((profile) => {
      if (profile.appid !== appid || !existsSync(profile.gateway_public_key_file)) return []
      const gatewayPublicKeyPem = readFileSync(profile.gateway_public_key_file, 'utf8')
      return [{appid, baseUrl: normalizeBaseUrl(profile.base_url), gatewayPublicKeyPem}]
    })
  }

  /** The private key a profile keeps, as stored (encrypted or not), and its file; undefined when there is none. */
  storedPrivateKey(name: string): {pem: string; file: string} | undefined {
    const file = this.stored(name)?.private_key_file
    return file && existsSync(file) ? {pem: readFileSync(file, 'utf8'), file} : undefined
  }

  /**
   * Changes some of a profile's settings, keeping the others (and whether it is the default),
   * as the profile is on disk under the lock: two changes made at once both stay.
   */
  set(name: string, changes: Partial<Omit<ProfileInput, 'name'>>, options: {allowPlainHttp?: boolean} = {}): KeyCheck {
    this.#require(name)
    const pem = (given: string | undefined, file: string) =>
      given ?? (existsSync(file) ? readFileSync(file, 'utf8') : '')
    return this.#save(
      name,
      (current) => {
        if (!current) throw this.#missing(name)
        return {
          appid: changes.appid ?? current.appid,
          baseUrl: changes.baseUrl ?? current.base_url,
          privateKeyPem: pem(changes.privateKeyPem, current.private_key_file),
          gatewayPublicKeyPem: pem(changes.gatewayPublicKeyPem, current.gateway_public_key_file),
          signScheme: changes.signScheme ?? current.sign_scheme,
          live: changes.live ?? current.live,
          gatewayZone: changes.gatewayZone ?? current.gateway_zone,
        }
      },
      options,
    )
  }

  /** Adds or replaces a profile. The first profile stored becomes the default. */
  add(input: ProfileInput, options: {makeDefault?: boolean; allowPlainHttp?: boolean} = {}): KeyCheck {
    return this.#save(input.name, () => input, options)
  }

  /** Writes the profile `build` makes from the stored one (if any), checked, under the lock. */
  #save(
    name: string,
    build: (current: StoredProfile | undefined) => Omit<ProfileInput, 'name'>,
    options: {makeDefault?: boolean; allowPlainHttp?: boolean} = {},
  ): KeyCheck {
    checkProfileName(name)
    // Key files of their own for this version of the profile: a replaced profile keeps its keys until the store points elsewhere.
    const keysDir = ensurePrivateDir(join(this.dir, 'keys'))
    const version = randomBytes(4).toString('hex')
    const privateKeyFile = join(keysDir, `${name}.${version}.private.pem`)
    const gatewayKeyFile = join(keysDir, `${name}.${version}.gateway.pem`)
    let replaced: StoredProfile | undefined
    let check: KeyCheck | undefined
    try {
      this.#update((data) => {
        replaced = own(data, name)
        const input = build(replaced)
        const {appid, baseUrl, live, scheme} = checkedGateway(input, replaced, options)
        check = checkKeys(input.privateKeyPem, input.gatewayPublicKeyPem)
        writePrivateFile(privateKeyFile, input.privateKeyPem)
        writePrivateFile(gatewayKeyFile, input.gatewayPublicKeyPem)
        const profile = {
          appid,
          base_url: baseUrl,
          private_key_file: privateKeyFile,
          gateway_public_key_file: gatewayKeyFile,
          sign_scheme: scheme,
          live,
          gateway_zone: checkGatewayZone(input.gatewayZone ?? DEFAULT_GATEWAY_ZONE),
        }
        const isDefault = options.makeDefault || !data.default || !own(data, data.default)
        return {profiles: {...data.profiles, [name]: profile}, default: isDefault ? name : data.default}
      })
    } catch (error) {
      removeKeys({private_key_file: privateKeyFile, gateway_public_key_file: gatewayKeyFile})
      throw error
    }
    if (replaced) removeKeys(replaced)
    return check!
  }

  use(name: string): void {
    this.#require(name)
    this.#update((data) => ({...data, default: name}))
  }

  remove(name: string): void {
    const stored = this.#require(name)
    this.#update((data) => {
      const profiles = {...data.profiles}
      delete profiles[name]
      return {profiles, default: data.default === name ? undefined : data.default}
    })
    removeKeys(stored)
  }

  load(name: string): Profile {
    const stored = this.#require(name)
    const read = (file: string, key: 'private' | 'gateway') => {
      const what = key === 'private' ? 'private key' : 'gateway public key'
      if (!existsSync(file))
        throw usageError(
          `The ${what} of profile "${name}" is missing (${file}).`,
          `Give it again: ${replaceKey({name, source: 'store'}, key)}.`,
        )
      // The gateway's key decides which answers are trusted: one another user could have put there is never read.
      refuseSharedFolder(dirname(file), OWN_CONFIG_DIR)
      const foreign = notOurs(statSync(file))
      if (foreign)
        throw usageError(
          `The ${what} of profile "${name}" (${file}) is not used: ${foreign}. Nothing was sent.`,
          `Give it again: ${replaceKey({name, source: 'store'}, key)}.`,
        )
      return readFileSync(file, 'utf8')
    }
    const privateKeyPem = read(stored.private_key_file, 'private')
    const gatewayPublicKeyPem = read(stored.gateway_public_key_file, 'gateway')
    // A key file that is not a key is the profile's problem (exit 2), whatever the command.
    checkLoadedKeys(privateKeyPem, gatewayPublicKeyPem, keyLabels({name, source: 'store'}))
    const {appid, base_url: baseUrl, sign_scheme: signScheme, live} = stored
    const gatewayZone = zoneName(stored.gateway_zone ?? DEFAULT_GATEWAY_ZONE)
    if (!gatewayZone)
      throw usageError(
        `The profile store ${this.path} gives profile "${name}" a gateway zone that is not a time zone (${quoted(stored.gateway_zone)}).`,
        `Set it: ${gwCommand(undefined, 'profile', 'set', name, '--gateway-zone', DEFAULT_GATEWAY_ZONE)}`,
      )
    const files = [this.dir, join(this.dir, 'keys'), this.path, stored.private_key_file, stored.gateway_public_key_file]
    const privateKeyFile = stored.private_key_file
    return {
      name,
      appid,
      baseUrl,
      signScheme,
      live,
      gatewayZone,
      privateKeyPem,
      gatewayPublicKeyPem,
      source: 'store',
      privateKeyFile,
      files,
    }
  }

  #require(name: string): StoredProfile {
    const stored = this.stored(name)
    if (!stored) throw this.#missing(name)
    return stored
  }

  #missing(name: string): GwError {
    const known = this.names()
    return usageError(
      `There is no profile ${quoted(name)}.`,
      known.length
        ? `Known profiles: ${known.join(', ')}.`
        : 'Add one with gw profile add, or start the sandbox: gw sandbox start.',
    )
  }
}
