/**
 * The sandbox gateway's HTTP server: the five operations under /Gateway (operation), the
 * payer page under /pay, QR images under /qr, and an unsigned control API under /sandbox
 * (control; loopback only). It shares only the protocol, signing and the generic I/O pieces
 * with the client side of gw.
 */
import {readFileSync} from 'node:fs'
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'

import QRCode from 'qrcode'

import type {SignScheme} from '../lib/gateway/signing.js'
import {localZone} from '../lib/gateway/protocol/time.js'
import {readBody, reply} from '../lib/io/http.js'
import {type Lock, type LockHolder, LockHeld, holdLock} from '../lib/io/lock.js'
import {ensurePrivateDir, writePrivateFile} from '../lib/io/private-file.js'
import {control} from './control.js'
import {envelope} from './envelope.js'
import {type Faults, parseFaults} from './faults.js'
import {Ledger, type SandboxOrder} from './ledger.js'
import {type GatewayKeys, type Merchant, loadGatewayKeys, loadMerchants} from './merchants.js'
import type {RequestRecord} from './request-log.js'
import {Notifier, type RetryClock} from './notifier.js'
import {MAX_BODY, Operations} from './operation.js'
import {notFoundPage, payerPage} from './payer-page.js'
import {GatewayRules} from './rules/index.js'
import {notificationData} from './rules/records.js'

export interface SandboxOptions {
  dataDir: string
  port?: number
  host?: string
  /** Divides every delay and lifetime (notification retries, QR expiry, refund delays). */
  timeScale?: number
  /** Pay every new order by itself this many seconds after it is made (divided by the time scale; 0 at once). */
  autoPay?: number
  faults?: string
  /** Refuse every departure from the API document, as the document says (else accepted, with a warning). */
  strict?: boolean
  /** What notification retries wait on: the machine's clock unless a test gives its own. */
  retryClock?: RetryClock
  /** Each request to an operation, once answered. */
  onRequest?: (record: RequestRecord) => void
  log?: (line: string) => void
}

export interface SandboxInfo {
  base_url: string
  origin: string
  /** The gateway's public key, SPKI ("PUBLIC KEY"). */
  gateway_public_key_file: string
  /** The same key in both forms the gateway issues: SPKI and PKCS#1 ("RSA PUBLIC KEY"). */
  gateway_public_key_files: {spki: string; pkcs1: string}
  /** The merchants whose keys the sandbox made. */
  merchants: {appid: string; private_key_file: string; public_key_file: string; sign_scheme: SignScheme}[]
  /** Merchants of your own (gw sandbox merchant add): the sandbox has only their public keys. */
  own_merchants: {appid: string; public_key_file: string; sign_scheme: SignScheme}[]
  /** The zone the sandbox writes its times (time_end, refund_time) in: its own, as the gateway writes Thailand's. */
  gateway_zone: string
}

export interface RunningSandbox {
  info: SandboxInfo
  close(): Promise<void>
}

const HTML = 'text/html; charset=utf-8'

/** A name taken from a path, percent-decoded; '' when its escapes are malformed. */
function decodeName(raw: string): string {
  try {
    return decodeURIComponent(raw)
  } catch {
    return ''
  }
}

function isLoopback(address: string | undefined): boolean {
  return !!address && (address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.'))
}

class SandboxServer {
  readonly ledger: Ledger
  readonly merchants: Map<string, Merchant>
  readonly gateway: GatewayKeys
  readonly rules: GatewayRules
  readonly notifier: Notifier
  readonly operations: Operations
  faults: Faults
  readonly #timers = new Set<NodeJS.Timeout>()

  constructor(readonly options: SandboxOptions & {timeScale: number}) {
    ensurePrivateDir(options.dataDir)
    const log = options.log ?? (() => {})
    this.gateway = loadGatewayKeys(options.dataDir)
    this.merchants = loadMerchants(options.dataDir)
    this.ledger = new Ledger(options.dataDir)
    this.faults = parseFaults(options.faults)
    const schemeOf = (appid: string) => this.merchants.get(appid)?.sign_scheme ?? 'rsa-md5'
    this.notifier = new Notifier({
      ledger: this.ledger,
      timeScale: options.timeScale,
      clock: options.retryClock,
      body: (order) => JSON.stringify(envelope(this.gateway, notificationData(order), schemeOf(order.appid))),
      log,
    })
    this.rules = new GatewayRules({
      ledger: this.ledger,
      timeScale: options.timeScale,
      onPaid: (order) => this.notifier.deliver(order),
    })
    this.operations = new Operations({
      gateway: this.gateway,
      merchants: this.merchants,
      rules: this.rules,
      faults: () => this.faults,
      strict: options.strict ?? false,
      record: options.onRequest ?? (() => {}),
      created: (appid, mchOrderNo) => this.#autoPay(appid, mchOrderNo),
    })
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sandbox')
    const origin = `http://${req.headers.host ?? 'localhost'}`
    const gatewayPath = /^\/Gateway\/([a-z_]+)\/?$/.exec(url.pathname)
    if (gatewayPath) return this.operations.handle(req, res, gatewayPath[1]!, origin, url)
    if (url.pathname.startsWith('/sandbox/')) {
      const refused = this.#controlRefusal(req)
      if (refused) return reply(res, refused.status, JSON.stringify({error: refused.error}))
      const faults = {get: () => this.faults, set: (faults: Faults) => (this.faults = faults)}
      const {ledger, merchants, rules} = this
      const redeliver = (order: SandboxOrder) => this.notifier.redeliver(order)
      const reloadMerchants = () => this.reloadMerchants()
      const {requests} = this.operations
      const {autoPay} = this.options
      return control({ledger, merchants, rules, requests, autoPay, faults, redeliver, reloadMerchants}, req, res, url)
    }
    const named = (pattern: RegExp) => {
      const match = pattern.exec(url.pathname)
      return match && decodeName(match[1]!)
    }
    const payPath = named(/^\/pay\/([^/]+)$/)
    const qrPath = named(/^\/qr\/([^/]+)\.png$/)
    if (payPath === '' || qrPath === '') return reply(res, 400, notFoundPage(), HTML)
    if (payPath) return this.#payerPage(req, res, payPath)
    if (qrPath) {
      const order = this.ledger.byGatewayNumber(qrPath)
      if (!order) return reply(res, 404, notFoundPage(), HTML)
      const png = await QRCode.toBuffer(`${origin}/pay/${order.gw_order_no}`, {margin: 2})
      res.writeHead(200, {'content-type': 'image/png', 'content-length': png.length})
      res.end(png)
      return
    }
    this.operations.unknown(req, res, url.pathname, `no operation at ${url.pathname}; operations are under /Gateway/`)
  }

  /**
   * The control API pays orders and sets faults without a signature, so it answers only this
   * machine's own tools: a loopback client naming this sandbox's loopback address as Host
   * (not a rebound DNS name), no cross-origin browser request, JSON bodies only (no form a
   * web page could post).
   */
  #controlRefusal(req: IncomingMessage): {status: number; error: string} | undefined {
    if (!isLoopback(req.socket.remoteAddress))
      return {status: 403, error: 'the sandbox control API answers loopback clients only'}
    const port = req.socket.localPort
    const own = ['127.0.0.1', 'localhost', '[::1]'].map((host) => `${host}:${port}`)
    if (!own.includes(req.headers.host ?? ''))
      return {status: 403, error: `the sandbox control API answers requests for ${own[0]} only`}
    const origin = req.headers.origin
    if (origin !== undefined && !own.some((host) => origin === `http://${host}`)) {
      return {status: 403, error: 'the sandbox control API does not answer cross-origin requests'}
    }
    const type = req.headers['content-type'] ?? ''
    if (req.method === 'POST' && !/^application\/json\b/i.test(type)) {
      return {status: 415, error: 'the sandbox control API takes JSON bodies only (content-type: application/json)'}
    }
    return undefined
  }

  /** Reads merchants.json again (a merchant added while running), and says so in sandbox.json. */
  reloadMerchants(): void {
    const fresh = loadMerchants(this.options.dataDir)
    this.merchants.clear()
    for (const [appid, merchant] of fresh) this.merchants.set(appid, merchant)
    this.onMerchants()
  }

  /** Called when the merchants change (sandbox.json is rewritten). */
  onMerchants: () => void = () => {}

  #autoPay(appid: string, mchOrderNo: string): void {
    if (this.options.autoPay === undefined) return
    const timer = setTimeout(
      () => {
        this.#timers.delete(timer)
        const order = this.ledger.byMchOrderNo(appid, mchOrderNo)
        if (order) this.rules.pay(order)
      },
      (this.options.autoPay * 1000) / this.options.timeScale,
    )
    this.#timers.add(timer)
  }

  async #payerPage(req: IncomingMessage, res: ServerResponse, gwOrderNo: string): Promise<void> {
    const order = this.ledger.byGatewayNumber(gwOrderNo)
    if (!order) return reply(res, 404, notFoundPage(), HTML)
    if (req.method === 'POST') {
      const body = await readBody(req, MAX_BODY)
      const action = body === 'too_large' ? '' : new URLSearchParams(body.toString('utf8')).get('action')
      if (action !== 'pay' && action !== 'decline')
        return reply(res, 400, payerPage(order, 'Choose Pay or Decline.'), HTML)
      const reason = this.rules.pay(order, action === 'decline')
      return reply(res, reason ? 409 : 200, payerPage(order, reason), HTML)
    }
    this.rules.scanned(order)
    reply(res, 200, payerPage(order), HTML)
  }

  async close(): Promise<void> {
    for (const timer of this.#timers) clearTimeout(timer)
    await this.notifier.close()
  }
}

/** Starts the sandbox; resolves once it listens and `sandbox.json` is written. */
/** A second sandbox started on a data dir one runs on: where the first runs (its sandbox.json), and who runs it. */
export class SandboxRunning extends Error {
  constructor(
    readonly dataDir: string,
    readonly baseUrl: string | undefined,
    readonly holder: LockHolder | undefined,
  ) {
    super(`a sandbox runs on ${dataDir} already${baseUrl ? ` at ${baseUrl}` : ''}`)
  }
}

/**
 * One data dir, one running sandbox: its lock, which the system lets go of when the sandbox ends
 * however it ends. A second is refused before it touches the data dir, its port or a profile.
 */
function holdDataDir(dataDir: string): Lock {
  ensurePrivateDir(dataDir)
  try {
    return holdLock(join(dataDir, 'running.lock'))
  } catch (error) {
    if (!(error instanceof LockHeld)) throw error
    throw new SandboxRunning(dataDir, runningAt(dataDir), error.holder)
  }
}

/** The address the running sandbox wrote in its sandbox.json, when it did. */
function runningAt(dataDir: string): string | undefined {
  try {
    const {base_url} = JSON.parse(readFileSync(join(dataDir, 'sandbox.json'), 'utf8')) as {base_url?: unknown}
    return typeof base_url === 'string' ? base_url : undefined
  } catch {
    return undefined
  }
}

export async function startSandbox(options: SandboxOptions): Promise<RunningSandbox> {
  const lock = holdDataDir(options.dataDir)
  try {
    return await serve(options, lock)
  } catch (error) {
    lock.release()
    throw error
  }
}

async function serve(options: SandboxOptions, lock: Lock): Promise<RunningSandbox> {
  const sandbox = new SandboxServer({...options, timeScale: options.timeScale ?? 1})
  const server: Server = createServer((req, res) => {
    sandbox.handle(req, res).catch((error: Error) => {
      options.log?.(`internal error: ${error.stack ?? error.message}`)
      reply(res, 500, JSON.stringify({code: 500, msg: 'internal sandbox error', data: {}}))
    })
  })
  server.keepAliveTimeout = 65_000
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 8787, options.host ?? '127.0.0.1', () => resolve())
  })
  const address = server.address() as AddressInfo
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address
  const origin = `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${address.port}`
  const info: SandboxInfo = {
    base_url: `${origin}/Gateway`,
    origin,
    gateway_public_key_file: sandbox.gateway.publicKeyFiles.spki,
    gateway_public_key_files: sandbox.gateway.publicKeyFiles,
    merchants: [],
    own_merchants: [],
    gateway_zone: localZone(),
  }
  sandbox.onMerchants = () => {
    const all = [...sandbox.merchants.values()]
    const described = ({appid, public_key_file, sign_scheme}: Merchant) => ({appid, public_key_file, sign_scheme})
    info.merchants = all.flatMap((m) =>
      m.private_key_file ? [{...described(m), private_key_file: m.private_key_file}] : [],
    )
    info.own_merchants = all.filter((m) => !m.private_key_file).map(described)
    writePrivateFile(join(options.dataDir, 'sandbox.json'), `${JSON.stringify(info, null, 2)}\n`)
  }
  sandbox.onMerchants()
  sandbox.notifier.resume()
  return {
    info,
    async close() {
      await sandbox.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      lock.release()
    },
  }
}
