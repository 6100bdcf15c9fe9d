import {once} from 'node:events'

import {Flags} from '@oclif/core'

import {GwCommand} from '../../lib/cli/base-command.js'
import {durationFlag} from '../../lib/cli/flags.js'
import {onInterrupt} from '../../lib/cli/interrupt.js'
import {sandboxView} from '../../lib/render/sandbox.js'
import {startSandboxRun} from './start.run.js'

export default class SandboxStart extends GwCommand<typeof SandboxStart> {
  static override summary = 'run the simulated gateway on this machine'
  static override description = `Serves the five operations at http://HOST:PORT/Gateway/<operation>, a payer page for every QR code, and a control API under /sandbox/ (loopback only). On first start it makes a gateway key pair and a merchant in the data dir (private keys PKCS#1, the gateway's public key both PKCS#1 and SPKI), and (unless --no-profile) a profile named "sandbox" pointing here; it becomes the default profile only when there is none. A sandbox of another data dir never takes the "sandbox" profile from the first (running or not): it gets one of its own, sandbox-2 and so on, unless --replace-profile (which says what it replaced). The ledger survives restarts. One data dir has one running sandbox: a second start on it says where the first runs and exits 2, changing no profile. Each request is shown on stderr as it is answered (one line: time, method, operation, appid, order, result or err_code, ms; with --json a JSON line), with the departures from the API document it accepted as warnings (GET, a reused nonce, a query without channel...: what the gateway's published SDKs send; --strict refuses them) and, for a signature that does not verify, the canonical string, the key's fingerprint and the likeliest cause. Stop it with Ctrl-C.`
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
    const {summary, stop} = await startSandboxRun(flags, this.store, this.showing)
    if (this.jsonEnabled()) this.logJson(summary)
    else this.log(sandboxView(summary, flags.faults))
    const interrupt = onInterrupt()
    await once(interrupt.signal, 'abort')
    await stop()
    interrupt.dispose()
    this.note('sandbox stopped; the ledger is saved')
  }
}
