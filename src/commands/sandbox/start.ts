import {readFileSync} from 'node:fs'
import {resolve} from 'node:path'

import {Flags} from '@oclif/core'

import {GwCommand} from '../../lib/cli/base-command.js'
import {usageError} from '../../lib/errors.js'
import {defaultSandboxDir} from '../../lib/paths.js'
import {fields} from '../../lib/render/fields.js'

export default class SandboxStart extends GwCommand<typeof SandboxStart> {
  static override summary = 'run the simulated gateway on this machine'
  static override description = `Serves the five operations at http://HOST:PORT/Gateway/<operation>, a payer page for every QR code, and a control API under /sandbox/ (loopback only). On first start it makes a gateway key pair and a merchant in the data dir, and (unless --no-profile) a profile named "sandbox" pointing here; it becomes the default profile only when there is none. The ledger survives restarts. Stop it with Ctrl-C.`
  static override examples = [
    '<%= config.bin %> sandbox start',
    '<%= config.bin %> sandbox start --port 0 --data-dir ./sandbox-data --time-scale 60',
    '<%= config.bin %> sandbox start --faults drop-after-commit=0.05,http-500=0.05,latency=50-300ms',
    '<%= config.bin %> sandbox start --auto-pay 5',
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
    }),
    'auto-pay': Flags.integer({description: 'pay every new order after SECONDS', min: 0}),
    faults: Flags.string({
      description:
        'inject faults, e.g. drop-after-commit=0.05,http-500=0.05,code-nonzero=0.05,notsure=0.02,bad-signature=0.01,refund-processing=0.1,latency=50-300ms',
    }),
    'no-profile': Flags.boolean({description: 'do not create or update the "sandbox" profile'}),
    quiet: Flags.boolean({char: 'q', description: 'do not log each request on stderr'}),
  }

  async run(): Promise<void> {
    const {flags} = this
    const {startSandbox} = await import('../../sandbox/server.js')
    const {FaultSpecError, parseFaults} = await import('../../sandbox/faults.js')
    try {
      parseFaults(flags.faults)
    } catch (error) {
      if (error instanceof FaultSpecError) throw usageError(`--faults: ${error.message}.`)
      throw error
    }
    if (flags.host !== '127.0.0.1' && flags.host !== 'localhost' && flags.host !== '::1') {
      this.warning(
        `listening on ${flags.host}: other machines can reach the sandbox's operations and payer pages (the control API still answers loopback only).`,
      )
    }
    const dataDir = resolve(flags['data-dir'] ?? defaultSandboxDir())
    let sandbox: Awaited<ReturnType<typeof startSandbox>>
    try {
      sandbox = await startSandbox({
        dataDir,
        port: flags.port,
        host: flags.host,
        timeScale: flags['time-scale'],
        autoPay: flags['auto-pay'],
        faults: flags.faults,
        log: flags.quiet ? undefined : (line) => process.stderr.write(`${new Date().toISOString()} ${line}\n`),
      })
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'EADDRINUSE')
        throw usageError(
          `port ${flags.port} on ${flags.host} is in use (perhaps a sandbox is already running).`,
          'Stop it, or pick another port: --port 8790, or --port 0 for any free one.',
        )
      if (code === 'EACCES')
        throw usageError(`not allowed to listen on ${flags.host}:${flags.port}.`, 'Use a port above 1024.')
      throw error
    }
    const {info} = sandbox
    const merchant = info.merchants[0]!
    let profile: string | undefined
    if (!flags['no-profile']) {
      this.store.add({
        name: 'sandbox',
        appid: merchant.appid,
        baseUrl: info.base_url,
        privateKeyPem: readFileSync(merchant.private_key_file, 'utf8'),
        gatewayPublicKeyPem: readFileSync(info.gateway_public_key_file, 'utf8'),
        signScheme: merchant.sign_scheme,
      })
      profile = 'sandbox'
    }
    const summary = {
      ...info,
      data_dir: dataDir,
      profile: profile ?? null,
      default_profile: this.store.defaultName() ?? null,
    }
    if (this.jsonEnabled()) {
      this.logJson(summary)
    } else {
      this.log(
        fields([
          ['sandbox', `listening at ${info.base_url}`],
          ['merchant', `${merchant.appid} (all channels; THB MYR JPY AED)`],
          ['data dir', dataDir],
          [
            'profile',
            profile
              ? `"sandbox"${summary.default_profile === 'sandbox' ? ' (default)' : ` (not the default; use --profile sandbox or gw profile use sandbox)`}`
              : 'none (--no-profile)',
          ],
          ['faults', flags.faults ?? 'none'],
        ]),
      )
      this.log('Try: gw order create --channel wechat --amount 10.00 --fee-type THB   (Ctrl-C stops the sandbox)')
    }
    await new Promise<void>((resolveStop) => {
      const stop = () => resolveStop()
      process.once('SIGINT', stop)
      process.once('SIGTERM', stop)
    })
    await sandbox.close()
    this.note('sandbox stopped; the ledger is saved')
  }
}
