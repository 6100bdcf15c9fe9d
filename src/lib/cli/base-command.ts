/**
 * The one base command: `--profile`, `--json`, the profile, and every error mapped to the
 * exit codes of DESIGN.md. oclif drops custom exit codes under --json, so the code is set
 * here on process.exitCode and errors are rendered here, never thrown back to oclif.
 */
import {Command, Errors, Flags, type Interfaces} from '@oclif/core'

import {type ClientOptions, GatewayClient, closeConnections} from '../gateway/client.js'
import {GwError, type ExitCode, usageError} from '../errors.js'
import {OrderHistory} from '../orders/history.js'
import {OrderService} from '../orders/service.js'
import {type Profile, ProfileStore, resolveProfile} from '../profiles/store.js'
import {RefundService} from '../refunds/service.js'
import {red, yellow} from '../render/style.js'

export type GwFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof GwCommand)['baseFlags'] & T['flags']>
export type GwArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>

/** Flags of every command that talks to the gateway. */
export const networkFlags = {
  timeout: Flags.integer({
    description: 'seconds to wait for each answer (connect: at most 5)',
    default: 15,
    min: 1,
    helpGroup: 'NETWORK',
  }),
}

/** Flags of commands that move money on a --live profile. */
export const liveFlags = {
  yes: Flags.boolean({char: 'y', description: 'do not ask for confirmation on a --live profile'}),
}

export abstract class GwCommand<T extends typeof Command> extends Command {
  static override enableJsonFlag = true

  static override baseFlags = {
    profile: Flags.string({
      char: 'p',
      description: 'profile to use (else GW_PROFILE, else GW_APPID and friends, else the default profile)',
      helpGroup: 'GLOBAL',
    }),
  }

  protected flags!: GwFlags<T>
  protected args!: GwArgs<T>

  override async init(): Promise<void> {
    await super.init()
    const {args, flags} = await this.parse({
      args: this.ctor.args,
      baseFlags: (this.ctor as typeof GwCommand).baseFlags,
      enableJsonFlag: this.ctor.enableJsonFlag,
      flags: this.ctor.flags,
      strict: this.ctor.strict,
    })
    this.flags = flags as GwFlags<T>
    this.args = args as GwArgs<T>
  }

  #store?: ProfileStore
  #profile?: Profile

  protected get store(): ProfileStore {
    this.#store ??= new ProfileStore()
    return this.#store
  }

  /** The profile this command acts for (loaded once). */
  protected get profile(): Profile {
    this.#profile ??= resolveProfile(this.flags.profile, this.store)
    return this.#profile
  }

  #client?: GatewayClient
  #history?: OrderHistory

  /** The signed client for the profile in use; `--timeout` applies when the command has it. */
  protected gateway(options: ClientOptions = {}): GatewayClient {
    const timeout = (this.flags as {timeout?: number}).timeout
    this.#client ??= new GatewayClient(this.profile, {
      ...(timeout ? {timeoutMs: timeout * 1000, connectTimeoutMs: Math.min(5000, timeout * 1000)} : {}),
      ...options,
    })
    return this.#client
  }

  protected get history(): OrderHistory {
    this.#history ??= new OrderHistory()
    return this.#history
  }

  protected get orders(): OrderService {
    return new OrderService(this.gateway(), this.history)
  }

  protected get refunds(): RefundService {
    return new RefundService(this.gateway(), this.history, this.orders)
  }

  /**
   * On a --live profile, money-moving commands ask first on a terminal and need --yes
   * otherwise.
   */
  protected async confirmLive(action: string): Promise<void> {
    const profile = this.profile
    if (!profile.live || (this.flags as {yes?: boolean}).yes) return
    if (!process.stdin.isTTY || !process.stderr.isTTY) {
      throw usageError(
        `Profile "${profile.name}" is live and this would ${action}.`,
        'Add --yes to confirm (no terminal to ask on).',
      )
    }
    const {confirm} = await import('@inquirer/prompts')
    const ok = await confirm(
      {message: `LIVE profile "${profile.name}" (${profile.appid}): ${action}?`, default: false},
      {output: process.stderr},
    )
    if (!ok) throw usageError('Cancelled; nothing was sent.')
  }

  override async finally(error: Error | undefined): Promise<void> {
    await closeConnections()
    await super.finally(error)
  }

  /** The exit code to end with when the command finishes without an error. */
  protected setExitCode(code: ExitCode): void {
    process.exitCode = code
  }

  /** A note for people, on stderr, also under --json (stdout stays one JSON document). */
  protected note(message: string): void {
    process.stderr.write(`${message}\n`)
  }

  protected warning(message: string): void {
    process.stderr.write(`${yellow('warning', process.stderr)}: ${message}\n`)
  }

  override async catch(error: Error & {exitCode?: number}): Promise<void> {
    const gwError = toGwError(error)
    process.exitCode = gwError.exitCode
    if (this.jsonEnabled()) {
      this.logJson({
        error: {
          kind: gwError.kind,
          exit_code: gwError.exitCode,
          message: gwError.message,
          ...(gwError.advice ? {advice: gwError.advice} : {}),
          ...gwError.details,
        },
      })
    }
    const advice = gwError.advice ? `\n${gwError.advice}` : ''
    process.stderr.write(`${red('Error', process.stderr)}: ${gwError.message}${advice}\n`)
    if (process.env.DEBUG && error.stack) process.stderr.write(`${error.stack}\n`)
  }
}

function toGwError(error: Error): GwError {
  if (error instanceof GwError) return error
  // oclif's own errors come from parsing the command line: flags, arguments, options.
  if (error instanceof Errors.CLIError) {
    return new GwError('usage', error.message.replace(/\nSee more help with --help$/, ''), {
      advice: 'See the command and its examples with --help.',
    })
  }
  return new GwError('transport', `unexpected failure: ${error.message}`, {
    advice: 'Run again with DEBUG=1 for details, and report it if it persists.',
  })
}
