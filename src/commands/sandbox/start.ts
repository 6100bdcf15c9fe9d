import {once} from 'node:events'
import {closeSync} from 'node:fs'
import {resolve} from 'node:path'

import {Flags} from '@oclif/core'

import {GwCommand} from '../../lib/cli/base-command.js'
import {durationFlag} from '../../lib/cli/flags.js'
import {onInterrupt} from '../../lib/cli/interrupt.js'
import {usageError} from '../../lib/errors.js'
import {defaultSandboxDir} from '../../lib/paths.js'
import {requestLines, safeRecord, sandboxView} from '../../lib/render/sandbox.js'
import {adoptSandbox} from '../../lib/profiles/sandbox-profile.js'
import {checkHost, isLoopbackHost, listenError} from '../../lib/cli/listening.js'
import type {RequestRecord} from '../../sandbox/request-log.js'

export default class SandboxStart extends GwCommand<typeof SandboxStart> {
  static override summary = 'run the simulated gateway on this machine'
  static override description = `Serves the five operations at http://HOST:PORT/Gateway/<operation>, a payer page for every QR code, and a control API under /sandbox/ (loopback only). On first start it makes a gateway key pair and a merchant in the data dir (private keys PKCS#1, the gateway's public key both PKCS#1 and SPKI), and (unless --no-profile) a profile named "sandbox" pointing here; it becomes the default profile only when there is none. A sandbox of another data dir never takes the "sandbox" profile from the first (running or not): it gets one of its own, sandbox-2 and so on, unless --replace-profile (which says what it replaced). The ledger survives restarts. Each request is shown on stderr as it is answered (one line: time, method, operation, appid, order, result or err_code, ms; with --json a JSON line), with the departures from the API document it accepted as warnings (GET, a reused nonce, a query without channel...: what the gateway's published SDKs send; --strict refuses them) and, for a signature that does not verify, the canonical string, the key's fingerprint and the likeliest cause. Stop it with Ctrl-C.`
  static override examples = [
    '<%= config.bin %> sandbox start',
    '<%= config.bin %> sandbox start --port 0 --data-dir ./sandbox-data --time-scale 60',
    '<%= config.bin %> sandbox start --faults drop-after-commit=0.05,http-500=0.05,latency=50-300ms',
    '<%= config.bin %> sandbox start --auto-pay 5 --log requests.jsonl',
    '<%= config.bin %> sandbox start --strict',
  ]

  static override flags = {
    port: Flags.integer({description: 'port to listen on (0 picks a free one)', default: 8787, min: 0, max: 65_535}),
    host: Flags.string({description: 'address to listen on', default: '127.0.0.1'}),
    'data-dir': Flags.string({
      description:
        'where keys, merchants and the ledger live (default: under the platform data dir, or GW_CONFIG_DIR/sandbox)',
    }),
    'time-scale': Flags.integer({
      description: 'divide every delay and lifetime by N (notification retries, QR expiry, delayed refunds)',
      default: 1,
      min: 1,
      max: 1_000_000,
    }),
    'auto-pay': durationFlag({
      description:
        'pay every new order by itself this long after it is made (5, 5s, 2m), as if its payer paid (0: as soon as it is answered; divided by --time-scale; up to 1d). Without it, orders wait for gw sandbox pay or the payer page',
      min: 0,
      max: 86_400,
    }),
    faults: Flags.string({
      description:
        'inject faults, e.g. drop-after-commit=0.05,http-500=0.05,code-nonzero=0.05,notsure=0.02,bad-signature=0.01,refund-processing=0.1,latency=50-300ms (change them while running with gw sandbox faults)',
    }),
    strict: Flags.boolean({
      description:
        'refuse what the API document forbids although the gateway accepts it: GET (REQUIRE_POST_METHOD), a query or close without channel and a refund query without its amounts (LACK_PARAMS), any reused nonce, other time_stamp forms, upper-case hex signatures',
    }),
    log: Flags.string({description: 'append every request answered to FILE as JSON lines (also with --quiet)'}),
    'no-profile': Flags.boolean({description: 'do not create or update a profile for this sandbox'}),
    'replace-profile': Flags.boolean({
      description:
        'point the "sandbox" profile here even when it is another sandbox\'s (another data dir): said when it is; without it, this sandbox gets a profile of its own (sandbox-2...)',
      exclusive: ['no-profile'],
    }),
    quiet: Flags.boolean({char: 'q', description: 'do not show each request on stderr'}),
  }

  async run(): Promise<void> {
    const {flags} = this
    const [{startSandbox}, {FaultSpecError, parseFaults}, {logLines, openLog}] = await Promise.all([
      import('../../sandbox/server.js'),
      import('../../sandbox/faults.js'),
      import('../../lib/io/json-lines.js'),
    ])
    try {
      parseFaults(flags.faults)
    } catch (error) {
      throw error instanceof FaultSpecError ? usageError(`--faults: ${error.message}.`) : error
    }
    checkHost(flags.host)
    const dataDir = resolve(flags['data-dir'] ?? defaultSandboxDir(this.io.env))
    const logFd = flags.log === undefined ? undefined : openLog(flags.log, 'requests.jsonl')
    const toLog =
      logFd === undefined
        ? undefined
        : logLines(logFd, (error) =>
            this.warning(
              `cannot write to the log ${flags.log} (${error.code ?? error.message}): requests from now on are not logged; the sandbox goes on answering.`,
            ),
          )
    const onRequest = (record: RequestRecord) => {
      toLog?.(safeRecord(record))
      if (flags.quiet) return
      if (this.jsonEnabled()) this.io.stderr.write(`${JSON.stringify(safeRecord(record))}\n`)
      else this.io.stderr.write(`${requestLines(record, this.io.stderr)}\n`)
    }
    const log = flags.quiet
      ? undefined
      : (line: string) => this.io.stderr.write(`${new Date().toISOString()} ${line}\n`)
    const options = {...flags, dataDir, timeScale: flags['time-scale'], autoPay: flags['auto-pay'], log, onRequest}
    const sandbox = await startSandbox(options).catch((error: unknown) => {
      throw listenError(error, flags.host, flags.port)
    })
    if (!isLoopbackHost(flags.host)) {
      this.warning(
        `listening on ${flags.host} port ${new URL(sandbox.info.base_url).port}: other machines can reach the sandbox's operations and payer pages (the control API still answers loopback only).`,
      )
    }
    const adopted = flags['no-profile'] ? undefined : adoptSandbox(this.store, sandbox.info, flags['replace-profile'])
    if (adopted?.replaced)
      this.warning(
        `profile "sandbox" pointed at another sandbox (${adopted.replaced.appid} at ${adopted.replaced.base_url}); it points here now (--replace-profile).`,
      )
    const summary = {
      ...sandbox.info,
      data_dir: dataDir,
      profile: adopted?.name ?? null,
      other_sandbox: adopted?.kept ?? null,
      default_profile: this.store.defaultName() ?? null,
      strict: flags.strict,
    }
    if (this.jsonEnabled()) this.logJson(summary)
    else this.log(sandboxView(summary, flags.faults))
    const interrupt = onInterrupt()
    await once(interrupt.signal, 'abort')
    await sandbox.close()
    if (logFd !== undefined) closeSync(logFd)
    interrupt.dispose()
    this.note('sandbox stopped; the ledger is saved')
  }
}
