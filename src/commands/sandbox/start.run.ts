/**
 * gw sandbox start's run: the sandbox started as its flags say, the profile pointed at it, and
 * what it says of each request it answers: a line on stderr (a JSON line under --json), nothing
 * with --quiet, and every request appended to the --log file as a JSON line. A log that can no
 * longer be written is said once; the sandbox goes on answering.
 */
import {closeSync} from 'node:fs'
import {resolve} from 'node:path'

import {usageError} from '../../lib/errors.js'
import {logLines, openLog} from '../../lib/io/json-lines.js'
import type {CommandIO} from '../../lib/io/streams.js'
import {defaultSandboxDir} from '../../lib/paths.js'
import type {ProfileStore} from '../../lib/profiles/store.js'
import {requestLines, safeRecord} from '../../lib/render/sandbox.js'
import type {RequestRecord} from '../../sandbox/request-log.js'
import type {SandboxRunning as SandboxRunningError} from '../../sandbox/server.js'
import {checkHost, isLoopbackHost, listenError} from '../../lib/cli/listening.js'
import {adoptSandbox} from './start.profile.run.js'

interface Reporting {
  /** --log FILE. */
  logFile?: string
  quiet: boolean
  json: boolean
  io: CommandIO
  warn(message: string): void
}

function sandboxRequests({logFile, quiet, json, io, warn}: Reporting) {
  const logFd = logFile === undefined ? undefined : openLog(logFile, 'requests.jsonl')
  const toLog =
    logFd === undefined
      ? undefined
      : logLines(logFd, (error) =>
          warn(
            `cannot write to the log ${logFile} (${error.code ?? error.message}): requests from now on are not logged; the sandbox goes on answering.`,
          ),
        )
  return {
    onRequest(record: RequestRecord): void {
      toLog?.(safeRecord(record))
      if (quiet) return
      io.stderr.write(json ? `${JSON.stringify(safeRecord(record))}\n` : `${requestLines(record, io.stderr)}\n`)
    },
    /** The sandbox's own notes (started, stopped), each with its time. */
    log: quiet ? undefined : (line: string) => io.stderr.write(`${new Date().toISOString()} ${line}\n`),
    close(): void {
      if (logFd !== undefined) closeSync(logFd)
    },
  }
}

/** A second sandbox on one data dir: where the first runs, and that nothing was changed (its profile points at the first still). */
function runningAlready({dataDir, baseUrl, holder}: SandboxRunningError) {
  const by = holder ? ` (process ${holder.pid} on ${holder.host}, since ${holder.since})` : ''
  return usageError(
    `A sandbox of the data dir ${dataDir} runs already${baseUrl ? ` at ${baseUrl}` : ''}${by}: this one did not start, and no profile was changed.`,
    'Use the one running (its profile points at it), stop it (Ctrl-C where it runs) before starting it again, or give this one a data dir of its own: --data-dir DIR.',
    {data_dir: dataDir, base_url: baseUrl ?? null, holder: holder ?? null},
  )
}

/** gw sandbox start's flags, as the command parsed them. */
interface StartFlags {
  port: number
  host: string
  'data-dir'?: string
  'time-scale': number
  'auto-pay'?: number
  faults?: string
  strict: boolean
  log?: string
  'no-profile': boolean
  'replace-profile': boolean
  quiet: boolean
}

/** Starts the sandbox: what it is (its --json document) and how it stops. */
export async function startSandboxRun(
  flags: StartFlags,
  store: ProfileStore,
  reporting: Omit<Reporting, 'logFile' | 'quiet'>,
) {
  const [{SandboxRunning, startSandbox}, {FaultSpecError, parseFaults}] = await Promise.all([
    import('../../sandbox/server.js'),
    import('../../sandbox/faults.js'),
  ])
  try {
    parseFaults(flags.faults)
  } catch (error) {
    throw error instanceof FaultSpecError ? usageError(`--faults: ${error.message}.`) : error
  }
  checkHost(flags.host)
  const dataDir = resolve(flags['data-dir'] ?? defaultSandboxDir(reporting.io.env))
  const {onRequest, log, close} = sandboxRequests({...reporting, logFile: flags.log, quiet: flags.quiet})
  const options = {...flags, dataDir, timeScale: flags['time-scale'], autoPay: flags['auto-pay'], log, onRequest}
  const sandbox = await startSandbox(options).catch((error: unknown) => {
    if (error instanceof SandboxRunning) throw runningAlready(error)
    throw listenError(error, flags.host, flags.port)
  })
  if (!isLoopbackHost(flags.host))
    reporting.warn(
      `listening on ${flags.host} port ${new URL(sandbox.info.base_url).port}: other machines can reach the sandbox's operations and payer pages (the control API still answers loopback only).`,
    )
  const adopted = flags['no-profile'] ? undefined : adoptSandbox(store, sandbox.info, flags['replace-profile'])
  if (adopted?.replaced)
    reporting.warn(
      `profile "sandbox" pointed at another sandbox (${adopted.replaced.appid} at ${adopted.replaced.base_url}); it points here now (--replace-profile).`,
    )
  const summary = {
    ...sandbox.info,
    data_dir: dataDir,
    profile: adopted?.name ?? null,
    other_sandbox: adopted?.kept ?? null,
    default_profile: store.defaultName() ?? null,
    strict: flags.strict,
  }
  const stop = async () => {
    await sandbox.close()
    close()
  }
  return {summary, stop}
}
