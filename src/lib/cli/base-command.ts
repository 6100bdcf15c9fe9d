/**
 * The one base command: `--profile`, `--json`, the profile, and every error mapped to the
 * exit codes of docs/design.md. oclif drops custom exit codes under --json, so the code is set
 * here on process.exitCode and errors are rendered here, never thrown back to oclif.
 */
import {Command, type Config, Flags, type Interfaces} from '@oclif/core'

import {EXIT_CODES, OUTCOME, type Outcome, gwCommand} from '../errors.js'
import {jsonChunks} from '../io/json-text.js'
import {checkKeys, keyLabels} from '../profiles/keys.js'
import {type CommandIO, processIO} from '../io/streams.js'
import {configDir} from '../paths.js'
import {keyPassphrase, startRun, unlockKey} from '../profiles/passphrase.js'
import {resolveProfile} from '../profiles/resolve.js'
import {type Profile, ProfileStore} from '../profiles/store.js'
import {red, yellow} from '../render/style.js'
import {terminalSafe, viewSafe, withoutKeys} from '../untrusted.js'
import {toGwError} from './command-errors.js'
import {type ConfirmOptions, askHidden, confirm} from './confirm.js'
import {endOnSignals, onInterrupt} from './interrupt.js'
import {canonicalChoices, listFilterOf, zoneFlag, zoneOf} from './flags.js'
import type {Work} from '../batch.js'
import type {WireEvent} from '../gateway/client.js'
import type {GatewayServices, ServiceFactory} from './services.js'
import type {JsonListWriter, ListQuery, ListShape, RefreshMarks} from './list-output.js'
import type {Asking, Showing} from './command-ports.js'

type GwFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof GwCommand)['baseFlags'] & T['flags']>
type GwArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>

export abstract class GwCommand<T extends typeof Command> extends Command {
  static override enableJsonFlag = true

  static override baseFlags = {
    profile: Flags.string({
      char: 'p',
      description: 'profile to use (else GW_PROFILE, else GW_APPID and friends, else the default profile)',
      helpGroup: 'GLOBAL',
    }),
    'passphrase-file': Flags.string({
      description:
        'file holding the passphrase of an encrypted private key (else GW_KEY_PASSPHRASE, else asked on a terminal)',
      helpGroup: 'GLOBAL',
    }),
  }

  protected flags!: GwFlags<T>
  protected args!: GwArgs<T>
  /** The streams and environment the command runs with: the process's, unless it is run with others (runIn). */
  protected io: CommandIO = processIO()
  /** Where its services come from: the default factory, unless it is run with another (runIn). */
  #factory?: ServiceFactory
  /** Run by runIn: the exit code is the command's own, not the process's. */
  #inProcess = false
  /** The exit code the command ends with. */
  #exitCode = 0

  /**
   * Runs the command as `gw ID ARGV...` with the streams, environment and services given (a
   * test's, in-process; every command is found by its id): the exit code it ends with.
   */
  static async runIn<C extends GwCommand<typeof Command>>(
    this: new (argv: string[], config: Config) => C,
    id: string,
    argv: string[],
    config: Config,
    context: {io: CommandIO; factory?: ServiceFactory},
  ): Promise<number> {
    const command = new this(argv, config)
    command.id = id
    command.io = context.io
    command.#factory = context.factory
    command.#inProcess = true
    await command._run()
    return command.#exitCode
  }

  /**
   * The run, and its exit code from how it ended: the outcome its result carries (OUTCOME), else
   * the one its list or error set, else done. Commands never set it themselves.
   */
  override async _run<R>(): Promise<R> {
    const result = await super._run<R>()
    const outcome =
      result !== null && typeof result === 'object' ? (result as {[OUTCOME]?: Outcome})[OUTCOME] : undefined
    if (outcome !== undefined) this.#setOutcome(outcome)
    return result
  }

  override async init(): Promise<void> {
    await super.init()
    if (!this.#inProcess) endOnSignals()
    const baseFlags = (this.ctor as typeof GwCommand).baseFlags
    const argv = canonicalChoices(this.argv, {...baseFlags, ...this.ctor.flags} as never)
    const {args, flags} = await this.parse(
      {
        args: this.ctor.args,
        baseFlags,
        enableJsonFlag: this.ctor.enableJsonFlag,
        flags: this.ctor.flags,
        strict: this.ctor.strict,
      },
      argv,
    )
    this.flags = flags as GwFlags<T>
    this.args = args as GwArgs<T>
    startRun(this.io, this.flags['passphrase-file'], (message) => askHidden(message, this.io))
    this.#onClockOf((flags as {zone?: string}).zone)
  }

  /** The TZ this run changed (--zone), to put back when it ends: `null` when there was none. */
  #clockBefore?: string | null

  /**
   * --zone (zoneFlag): the run reads and writes every time on that zone's clock, as if this
   * machine were there: one setting every view, --json, file and --since day follows.
   */
  #onClockOf(said: string | undefined): void {
    if (this.ctor.flags?.zone !== zoneFlag || said === undefined) return
    const zone = zoneOf(said, said.trim().toLowerCase() === 'gateway' ? this.profile.gatewayZone : '')
    if (!zone) return
    this.#clockBefore = process.env.TZ ?? null
    process.env.TZ = zone
  }

  #store?: ProfileStore
  #profile?: Profile

  protected get store(): ProfileStore {
    this.#store ??= new ProfileStore(configDir(this.io.env))
    return this.#store
  }

  /** The profile this command acts for (loaded once). */
  protected get profile(): Profile {
    this.#profile ??= resolveProfile(this.flags.profile, this.store, this.io)
    return this.#profile
  }

  /**
   * A profile (the one in use unless given) with its private key usable: an encrypted one's
   * passphrase from --passphrase-file, GW_KEY_PASSPHRASE or asked on a terminal, and checked
   * (a wrong one is exit 2).
   */
  protected async unlockedProfile(profile = this.profile): Promise<Profile> {
    const labels = keyLabels(profile)
    await unlockKey(profile.privateKeyPem, `the ${labels.privateKey}`, profile.privateKeyFile)
    checkKeys(profile.privateKeyPem, profile.gatewayPublicKeyPem, labels)
    return profile
  }

  /**
   * This command as it was given, with `extra` words it lacks (--yes), to suggest running again:
   * it runs as printed, every flag kept (a file's --column mappings too).
   */
  protected sameCommand(...extra: string[]): string {
    const given = this.argv
    const lacks = (word: string) => !given.includes(word) && !(word === '--yes' && given.includes('-y'))
    return gwCommand(undefined, ...this.id!.split(':'), ...given, ...extra.filter(lacks))
  }

  #services?: Promise<GatewayServices>
  /** A list's --json document being written: an error ends it rather than starting another. */
  #jsonList?: JsonListWriter

  /**
   * The client and services for the profile in use, loaded and built on first use; `--timeout`
   * and `--verbose` apply. `signs: false` for a command that may only read the local history
   * (a list without --refresh): an encrypted key's passphrase is then not asked for.
   */
  protected services({signs = true}: {signs?: boolean} = {}): Promise<GatewayServices> {
    this.#services ??= (async () => {
      const {timeout} = this.flags as {timeout?: number}
      // The profile first: one that cannot be used ends the command before anything else is loaded.
      const profile = signs ? await this.unlockedProfile() : this.profile
      const [factory, trace] = await Promise.all([this.serviceFactory(), this.wireTrace()])
      const options = {
        ...(timeout ? {timeoutMs: timeout * 1000, connectTimeoutMs: Math.min(5000, timeout * 1000)} : {}),
        trace,
        keyPassphrase: keyPassphrase(),
      }
      return factory.connect(profile, options, this.io, this.showing)
    })()
    return this.#services
  }

  /** The factory the command was given, else the default one (loaded only by commands that use it). */
  protected async serviceFactory(): Promise<ServiceFactory> {
    this.#factory ??= (await import('./services.js')).defaultServices
    return this.#factory
  }

  /**
   * How what a command runs (a service, its run beside it) shows things: the command's streams,
   * whether stdout is the --json document, a line on stdout, a note and a warning on stderr.
   */
  protected get showing(): Showing {
    return {
      io: this.io,
      json: this.jsonEnabled(),
      log: (line) => this.log(line),
      note: (message) => this.note(message),
      warn: (message) => this.warning(message),
    }
  }

  /** How a command's run asks before money moves, and shows long work (confirm, longWork). */
  protected get asking(): Asking {
    return {
      confirm: (action, options) => this.confirm(action, options),
      longWork: (label, total, stopping, failedWord) => this.longWork(label, total, stopping, failedWord),
    }
  }

  /** Under --verbose, what shows each attempt on the wire (on stderr); else undefined. */
  protected async wireTrace(): Promise<((event: WireEvent) => void) | undefined> {
    if (!(this.flags as {verbose?: boolean}).verbose) return undefined
    const {wireLines} = await import('../render/wire.js')
    return (event) => this.note(wireLines(event))
  }

  /**
   * Asks before money moves: on a --live profile, or `always`. The flag named by `flag`
   * (--yes unless said) answers for the user, and is named when there is no terminal.
   */
  protected async confirm(
    action: string,
    options: Omit<ConfirmOptions, 'profile' | 'yes' | 'flag'> & {flag?: 'yes' | 'again'} = {},
  ): Promise<void> {
    const flag = options.flag ?? 'yes'
    const yes = Boolean((this.flags as Record<string, unknown>)[flag])
    await confirm(action, {...options, profile: this.profile, yes, flag: `--${flag}`}, this.io)
  }

  /**
   * Long work with progress on stderr (shown on a terminal, or as plain lines when stdout is
   * not --json) and Ctrl-C as a request to stop: `stopping` says what happens then.
   */
  protected async longWork(
    label: string,
    total: number | undefined,
    stopping: string,
    failedWord?: string,
  ): Promise<Work> {
    const {startProgress} = await import('./progress.js')
    const enabled = total !== 0 && (Boolean(this.io.stderr.isTTY) || !this.jsonEnabled())
    const progress = await startProgress(this.io.stderr, label, total, enabled, failedWord)
    // The bar ends before the note, so the two never share a line.
    const interrupt = onInterrupt(() => {
      progress.stop()
      this.note(stopping)
    })
    return {
      progress,
      signal: interrupt.signal,
      done() {
        progress.stop()
        interrupt.dispose()
      },
    }
  }

  override async finally(error: Error | undefined): Promise<void> {
    const services = await this.#services?.catch(() => undefined)
    await services?.close()
    if (this.#clockBefore !== undefined) {
      if (this.#clockBefore === null) delete process.env.TZ
      else process.env.TZ = this.#clockBefore
    }
    await super.finally(error)
  }

  /** A list from the history's query, to every output as it comes (list-output.ts: showList). */
  protected async showList<T extends RefreshMarks, C extends string>(
    shape: ListShape<T, C>,
    list: ListQuery<T>,
  ): Promise<void> {
    const {showList} = await import('./list-output.js')
    const command = {
      flags: this.flags as Parameters<typeof listFilterOf>[0] & {bom?: boolean},
      showing: this.showing,
      startJsonList: (key: string) => this.startJsonList(key),
      endJsonList: (more: Record<string, unknown>) => this.endJsonList(more),
      present: (view: {text?: string; notes?: string[]}) => this.present(view),
      setOutcome: (outcome: Outcome) => this.#setOutcome(outcome),
    }
    await showList(command, shape, list)
  }

  /** A view for people: its text on stdout, its notes on stderr. */
  protected present(view: {text?: string; notes?: (string | undefined)[]}): void {
    if (view.text) this.log(view.text)
    for (const note of view.notes ?? []) if (note) this.note(note)
  }

  /**
   * --json's document as one list written an item at a time (`key`: its name), never held
   * whole; the members after the list are given at its end. An error met after it began ends it
   * instead of starting another document.
   */
  protected async startJsonList(key: string): Promise<JsonListWriter> {
    const {JsonListWriter} = await import('./list-output.js')
    this.#jsonList = new JsonListWriter(key, this.io.stdout)
    return this.#jsonList
  }

  /** Ends the list begun by startJsonList with the document's other members. */
  protected async endJsonList(more: Record<string, unknown>): Promise<void> {
    const json = this.#jsonList!
    this.#jsonList = undefined
    await json.end(more)
  }

  /** How the command ends: its exit code is the table's (errors.ts). */
  #setOutcome(outcome: Outcome): void {
    this.#exitCode = EXIT_CODES[outcome]
    if (!this.#inProcess) process.exitCode = this.#exitCode
  }

  /**
   * Output for people, on stdout, but under --json (then stdout holds the JSON document alone).
   * The last line of defence: what a command says carries no escape sequence to the terminal but
   * gw's own colours, whatever a record or an answer held.
   */
  override log(message = ''): void {
    if (!this.jsonEnabled()) this.io.stdout.write(`${viewSafe(message)}\n`)
  }

  /**
   * The --json document on stdout, as JSON.stringify(json, null, 2) writes it, in chunks (its
   * lazy lists item by item: a million rows are never one string), each written when stdout has
   * taken the last: a pipe read slowly does not make gw hold the document. oclif's own tokenises
   * the whole document to colour it (with no colours set), holding all of it at once.
   */
  override logJson(json: unknown): void {
    // A run whose result says only how it ended (a listener: its lines were its document) writes no other.
    if (json !== null && typeof json === 'object' && OUTCOME in json && !Object.keys(json).length) return
    const chunks = jsonChunks(json)
    const pump = (): void => {
      for (let next = chunks.next(); !next.done; next = chunks.next()) {
        if (!this.io.stdout.write(next.value)) {
          this.io.stdout.once('drain', pump)
          return
        }
      }
    }
    pump()
  }

  /** A note for people, on stderr, also under --json (stdout stays one JSON document). */
  protected note(message: string): void {
    this.io.stderr.write(`${terminalSafe(message)}\n`)
  }

  protected warning(message: string): void {
    this.io.stderr.write(`${yellow('warning', this.io.stderr)}: ${terminalSafe(message)}\n`)
  }

  override async catch(error: Error & {exitCode?: number}): Promise<void> {
    const flags = {...(this.ctor as typeof GwCommand).baseFlags, ...this.ctor.flags}
    const names = Object.entries(flags).map(([name, flag]) => [name, ...((flag as {aliases?: string[]}).aliases ?? [])])
    const gwError = toGwError(error, [...names, ['json'], ['help']])
    this.#setOutcome(gwError.kind)
    const described = {
      kind: gwError.kind,
      exit_code: gwError.exitCode,
      message: withoutKeys(gwError.message),
      ...(gwError.advice ? {advice: withoutKeys(gwError.advice)} : {}),
      ...gwError.details,
    }
    // A list's document already begun on stdout ends with the error, so stdout stays one document.
    if (this.#jsonList?.started) await this.#jsonList.end({error: described})
    else if (this.jsonEnabled()) this.logJson({error: described})
    const advice = gwError.advice ? `\n${gwError.advice}` : ''
    this.io.stderr.write(`${red('Error', this.io.stderr)}: ${terminalSafe(`${gwError.message}${advice}`)}\n`)
    if (this.io.env.DEBUG && error.stack) this.io.stderr.write(`${terminalSafe(error.stack)}\n`)
  }
}
