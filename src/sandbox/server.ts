/**
 * The sandbox gateway's HTTP server: the five operations under /Gateway, the payer page
 * under /pay, QR images under /qr, and an unsigned control API under /sandbox (loopback
 * only). Every answer to an operation is the envelope of section 2.1, signed over `data`
 * with the gateway key; malformed input gets an envelope too, never a crash.
 */
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'

import QRCode from 'qrcode'

import {checkRequest, OPERATIONS, type Operation, type RequestProblemKind} from '../lib/gateway/protocol/index.js'
import {isoWithOffset} from '../lib/gateway/protocol/time.js'
import {readBody} from '../lib/io/http-body.js'
import {ensurePrivateDir, writePrivateFile} from '../lib/io/private-file.js'
import {type SignScheme, newNonce, sign, verify} from '../lib/gateway/signing.js'
import {type Faults, latencyOf, parseFaults, strikes} from './faults.js'
import {Ledger, type SandboxOrder} from './ledger.js'
import {type GatewayKeys, type Merchant, loadGatewayKeys, loadMerchants} from './merchants.js'
import {Notifier} from './notifier.js'
import {notFoundPage, payerPage} from './payer-page.js'
import {GatewayRules, type Outcome} from './rules.js'

export interface SandboxOptions {
  dataDir: string
  port?: number
  host?: string
  /** Divides every delay and lifetime (notification retries, QR expiry, refund delays). */
  timeScale?: number
  /** Pay every new order after this many seconds (divided by the time scale). */
  autoPay?: number
  faults?: string
  log?: (line: string) => void
}

export interface SandboxInfo {
  base_url: string
  origin: string
  gateway_public_key_file: string
  merchants: {appid: string; private_key_file: string; sign_scheme: SignScheme}[]
}

export interface RunningSandbox {
  info: SandboxInfo
  close(): Promise<void>
}

const MAX_BODY = 1024 * 1024
const ACCEPTED_VERSIONS = ['1.0.0', '2.0.0', '3.0.0']
const CODE_FOR_PROBLEM: Record<RequestProblemKind, string> = {
  missing: 'LACK_PARAMS',
  order_number_missing: 'GW_ERROR_ORDER_NO',
  too_long: 'GW_PARAM_OVERLENGTH',
  invalid: 'GW_INVALID_PARAM',
  channel_not_taken: 'NOAUTH',
}
const NONCE_MEMORY = 200_000

class FormError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

/** Strict form decoding: malformed escapes and invalid UTF-8 are errors, not replacement characters. */
export function decodeForm(body: Buffer): Record<string, string> {
  const utf8 = new TextDecoder('utf-8', {fatal: true})
  const decode = (raw: string): string => {
    const bytes: number[] = []
    for (let i = 0; i < raw.length; i++) {
      const c = raw.charCodeAt(i)
      if (c === 0x25) {
        const hex = raw.slice(i + 1, i + 3)
        if (!/^[0-9a-fA-F]{2}$/.test(hex)) throw new FormError('GW_INVALID_PARAM', `malformed percent escape "%${hex}"`)
        bytes.push(Number.parseInt(hex, 16))
        i += 2
      } else {
        bytes.push(c === 0x2b ? 0x20 : c)
      }
    }
    try {
      return utf8.decode(Uint8Array.from(bytes))
    } catch {
      throw new FormError('NOT_UTF8', 'the request is not UTF-8')
    }
  }
  const params: Record<string, string> = {}
  for (const part of body.toString('latin1').split('&')) {
    if (!part) continue
    const at = part.indexOf('=')
    const name = decode(at === -1 ? part : part.slice(0, at))
    const value = at === -1 ? '' : decode(part.slice(at + 1))
    if (Object.hasOwn(params, name)) throw new FormError('GW_INVALID_PARAM', `parameter ${name} is given twice`)
    params[name] = value
  }
  return params
}

function isLoopback(address: string | undefined): boolean {
  return !!address && (address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.'))
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

class SandboxServer {
  readonly ledger: Ledger
  readonly merchants: Map<string, Merchant>
  readonly gateway: GatewayKeys
  readonly rules: GatewayRules
  readonly notifier: Notifier
  faults: Faults
  readonly #seenNonces = new Set<string>()
  /** Requests received per operation, for tests and benchmarks that must know what was sent. */
  readonly requests: Record<string, number> = {}
  readonly #timers = new Set<NodeJS.Timeout>()
  readonly #log: (line: string) => void

  constructor(readonly options: Required<Pick<SandboxOptions, 'dataDir' | 'timeScale'>> & SandboxOptions) {
    ensurePrivateDir(options.dataDir)
    this.#log = options.log ?? (() => {})
    this.gateway = loadGatewayKeys(options.dataDir)
    this.merchants = loadMerchants(options.dataDir)
    this.ledger = new Ledger(options.dataDir)
    this.faults = parseFaults(options.faults)
    this.notifier = new Notifier({
      ledger: this.ledger,
      timeScale: options.timeScale,
      body: (order) => JSON.stringify(this.envelope(this.rules.notificationData(order), this.#schemeOf(order.appid))),
      log: this.#log,
    })
    this.rules = new GatewayRules({
      ledger: this.ledger,
      merchants: this.merchants,
      timeScale: options.timeScale,
      onPaid: (order) => this.notifier.deliver(order),
    })
  }

  #schemeOf(appid: string | undefined): SignScheme {
    return (appid && this.merchants.get(appid)?.sign_scheme) || 'rsa-md5'
  }

  envelope(data: Record<string, unknown>, scheme: SignScheme, code = 0, msg = 'ok'): Record<string, unknown> {
    return {
      code,
      msg,
      status_code: '',
      status_msg: '',
      time_stamp: isoWithOffset(),
      version: '3.0.0',
      sign: sign(data, this.gateway.privateKey, scheme),
      data,
    }
  }

  #failure(outcome: Extract<Outcome, {ok: false}>): Record<string, unknown> {
    return {result: outcome.result ?? 'FAIL', err_code: outcome.code, err_msg: outcome.msg, nonce_str: newNonce()}
  }

  #send(res: ServerResponse, status: number, body: string, type = 'application/json; charset=utf-8'): void {
    res.writeHead(status, {'content-type': type, 'content-length': Buffer.byteLength(body)})
    res.end(body)
  }

  #sendJson(res: ServerResponse, status: number, value: unknown): void {
    this.#send(res, status, JSON.stringify(value))
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sandbox')
    const origin = `http://${req.headers.host ?? 'localhost'}`
    const gatewayPath = /^\/Gateway\/([a-z_]+)\/?$/.exec(url.pathname)
    if (gatewayPath) return this.#operation(req, res, gatewayPath[1]!, origin)
    if (url.pathname.startsWith('/sandbox/')) {
      if (!isLoopback(req.socket.remoteAddress))
        return this.#sendJson(res, 403, {error: 'the sandbox control API answers loopback clients only'})
      return this.#control(req, res, url)
    }
    const payPath = /^\/pay\/([^/]+)$/.exec(url.pathname)
    if (payPath) return this.#payerPage(req, res, decodeURIComponent(payPath[1]!))
    const qrPath = /^\/qr\/([^/]+)\.png$/.exec(url.pathname)
    if (qrPath) {
      const order = this.ledger.byGatewayNumber(decodeURIComponent(qrPath[1]!))
      if (!order) return this.#send(res, 404, notFoundPage(), 'text/html; charset=utf-8')
      const png = await QRCode.toBuffer(`${origin}/pay/${order.gw_order_no}`, {margin: 2})
      res.writeHead(200, {'content-type': 'image/png', 'content-length': png.length})
      res.end(png)
      return
    }
    this.#sendJson(
      res,
      404,
      this.envelope(
        {
          result: 'FAIL',
          err_code: 'RADIS_DOES_NOT_EXIST',
          err_msg: `no operation at ${url.pathname}; operations are under /Gateway/`,
          nonce_str: newNonce(),
        },
        'rsa-md5',
        404,
        'not found',
      ),
    )
  }

  async #operation(req: IncomingMessage, res: ServerResponse, name: string, origin: string): Promise<void> {
    const started = Date.now()
    const answer = (data: Record<string, unknown>, scheme: SignScheme, status = 200) => {
      const envelope = this.envelope(data, scheme)
      if (strikes(this.faults, 'bad-signature', name))
        envelope.sign = String(envelope.sign).replace(/^./, (c) => (c === '0' ? '1' : '0'))
      this.#sendJson(res, status, envelope)
      this.#log(
        `${req.method} /Gateway/${name} ${String(data.appid ?? '')} ${String(data.err_code ?? data.result)} ${Date.now() - started}ms`,
      )
    }
    const refuse = (code: string, msg: string, scheme: SignScheme = 'rsa-md5') =>
      answer(this.#failure({ok: false, code, msg}), scheme)

    if (!(OPERATIONS as readonly string[]).includes(name))
      return this.#sendJson(
        res,
        404,
        this.envelope(
          {
            result: 'FAIL',
            err_code: 'RADIS_DOES_NOT_EXIST',
            err_msg: `unknown operation ${name}; operations: ${OPERATIONS.join(', ')}`,
            nonce_str: newNonce(),
          },
          'rsa-md5',
          404,
          'not found',
        ),
      )
    const operation = name as Operation
    this.requests[operation] = (this.requests[operation] ?? 0) + 1
    if (req.method !== 'POST') {
      req.resume()
      return refuse('REQUIRE_POST_METHOD', `${req.method} is not allowed; use POST`)
    }
    const body = await readBody(req, MAX_BODY)
    if (body === 'too_large') {
      res.setHeader('connection', 'close')
      return refuse('GW_PARAM_OVERLENGTH', `the body is larger than ${MAX_BODY} bytes`)
    }
    if (body.length === 0) return refuse('POST_DATA_EMPTY', 'the POST body is empty')
    let params: Record<string, string>
    try {
      params = decodeForm(body)
    } catch (error) {
      if (error instanceof FormError) return refuse(error.code, error.message)
      throw error
    }
    const missingAuth = ['appid', 'nonce_str', 'sign'].filter((k) => !params[k])
    if (missingAuth.length) return refuse('LACK_PARAMS', `missing ${missingAuth.join(', ')}`)
    const merchant = this.merchants.get(params.appid!)
    if (!merchant) return refuse('GW_INVALID_MCHINFO', `appid ${params.appid} is unknown`)
    const scheme = merchant.sign_scheme
    if (!verify(params, params.sign!, merchant.publicKey, scheme))
      return refuse(
        'GW_SIGN_ERROR',
        `the signature does not verify with the key of ${merchant.appid} (${scheme})`,
        scheme,
      )
    if (params.version !== undefined && !ACCEPTED_VERSIONS.includes(params.version))
      return refuse(
        'GW_VERSION_ERROR',
        `version ${params.version} is not accepted; use ${ACCEPTED_VERSIONS.join(' or ')}`,
        scheme,
      )
    const problems = checkRequest(operation, params)
    if (problems.length) {
      const first = problems[0]!
      const same = problems.filter((p) => p.kind === first.kind).map((p) => p.message)
      return refuse(CODE_FOR_PROBLEM[first.kind], same.join('; '), scheme)
    }
    const nonceKey = `${merchant.appid}:${params.nonce_str}`
    if (this.#seenNonces.has(nonceKey))
      return refuse('GW_INVALID_PARAM', 'nonce_str was already used; every request needs a new one', scheme)
    this.#rememberNonce(nonceKey)

    const latency = latencyOf(this.faults)
    if (latency) await sleep(latency)
    if (strikes(this.faults, 'http-500', operation)) {
      this.#log(`POST /Gateway/${name} ${merchant.appid} fault http-500`)
      return this.#send(res, 500, 'Internal Server Error', 'text/plain')
    }
    if (strikes(this.faults, 'code-nonzero', operation)) {
      this.#log(`POST /Gateway/${name} ${merchant.appid} fault code-nonzero`)
      return this.#sendJson(res, 200, this.envelope({}, scheme, 1, 'system busy; send the same parameters again'))
    }
    let outcome = await this.rules.execute(operation, merchant, params, {
      origin,
      refundProcessing: strikes(this.faults, 'refund-processing', operation),
    })
    if (outcome.ok && operation === 'native_pay' && this.options.autoPay !== undefined)
      this.#autoPay(merchant.appid, params.mch_order_no!)
    if (strikes(this.faults, 'drop-after-commit', operation)) {
      this.#log(
        `POST /Gateway/${name} ${merchant.appid} fault drop-after-commit (${outcome.ok ? 'applied' : (outcome as {code: string}).code})`,
      )
      res.socket?.destroy()
      return
    }
    if (strikes(this.faults, 'notsure', operation))
      outcome = {ok: false, result: 'NOTSURE', code: 'SYSTEMERROR', msg: 'system timeout; query the order'}
    answer(outcome.ok ? outcome.data : this.#failure(outcome), scheme)
  }

  #rememberNonce(key: string): void {
    if (this.#seenNonces.size >= NONCE_MEMORY) this.#seenNonces.delete(this.#seenNonces.values().next().value!)
    this.#seenNonces.add(key)
  }

  #autoPay(appid: string, mchOrderNo: string): void {
    const timer = setTimeout(
      () => {
        this.#timers.delete(timer)
        const order = this.ledger.byMchOrderNo(appid, mchOrderNo)
        if (order) this.rules.pay(order)
      },
      (this.options.autoPay! * 1000) / this.options.timeScale,
    )
    this.#timers.add(timer)
  }

  #findForPayer(mchOrderNo: string, appid?: string): SandboxOrder[] {
    const appids = appid ? [appid] : [...this.merchants.keys()]
    return appids.map((a) => this.ledger.byMchOrderNo(a, mchOrderNo)).filter((o): o is SandboxOrder => !!o)
  }

  async #control(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const body = req.method === 'POST' ? await readBody(req, MAX_BODY) : Buffer.alloc(0)
    let input: Record<string, unknown> = {}
    if (body !== 'too_large' && body.length) {
      try {
        input = JSON.parse(body.toString('utf8')) as Record<string, unknown>
      } catch {
        return this.#sendJson(res, 400, {error: 'the body must be JSON'})
      }
    }
    const route = `${req.method} ${url.pathname}`
    switch (route) {
      case 'GET /sandbox/health':
        return this.#sendJson(res, 200, {ok: true})
      case 'GET /sandbox/stats':
        return this.#sendJson(res, 200, {requests: this.requests})
      case 'POST /sandbox/pay': {
        const mchOrderNo = String(input.mch_order_no ?? '')
        const found = this.#findForPayer(mchOrderNo, input.appid ? String(input.appid) : undefined)
        if (found.length === 0) return this.#sendJson(res, 404, {error: `no order ${mchOrderNo} in this sandbox`})
        if (found.length > 1)
          return this.#sendJson(res, 409, {error: `several merchants have an order ${mchOrderNo}; give the appid`})
        const order = found[0]!
        const reason = this.rules.pay(order, input.fail === true)
        if (reason) return this.#sendJson(res, 409, {error: reason, order})
        return this.#sendJson(res, 200, {order})
      }
      case 'GET /sandbox/orders': {
        const appid = url.searchParams.get('appid')
        const mchOrderNo = url.searchParams.get('mch_order_no')
        const orders = this.ledger
          .orders()
          .filter((o) => (!appid || o.appid === appid) && (!mchOrderNo || o.mch_order_no === mchOrderNo))
        return this.#sendJson(res, 200, {orders})
      }
      case 'GET /sandbox/notifications': {
        const mchOrderNo = url.searchParams.get('mch_order_no')
        const notifications = this.ledger
          .orders()
          .filter((o) => o.notifications.length && (!mchOrderNo || o.mch_order_no === mchOrderNo))
          .flatMap((o) =>
            o.notifications.map((n) => ({
              appid: o.appid,
              mch_order_no: o.mch_order_no,
              gw_order_no: o.gw_order_no,
              ...n,
            })),
          )
          .sort((a, b) => a.at.localeCompare(b.at))
        return this.#sendJson(res, 200, {notifications})
      }
      case 'POST /sandbox/faults': {
        try {
          this.faults = parseFaults(String(input.spec ?? ''))
        } catch (error) {
          return this.#sendJson(res, 400, {error: (error as Error).message})
        }
        return this.#sendJson(res, 200, {faults: this.faults})
      }
      default:
        return this.#sendJson(res, 404, {error: `no control route ${route}`})
    }
  }

  async #payerPage(req: IncomingMessage, res: ServerResponse, gwOrderNo: string): Promise<void> {
    const order = this.ledger.byGatewayNumber(gwOrderNo)
    if (!order) return this.#send(res, 404, notFoundPage(), 'text/html; charset=utf-8')
    if (req.method === 'POST') {
      const body = await readBody(req, MAX_BODY)
      const action = body === 'too_large' ? '' : new URLSearchParams(body.toString('utf8')).get('action')
      if (action !== 'pay' && action !== 'decline')
        return this.#send(res, 400, payerPage(order, 'Choose Pay or Decline.'), 'text/html; charset=utf-8')
      const reason = this.rules.pay(order, action === 'decline')
      return this.#send(res, reason ? 409 : 200, payerPage(order, reason), 'text/html; charset=utf-8')
    }
    this.rules.scanned(order)
    this.#send(res, 200, payerPage(order), 'text/html; charset=utf-8')
  }

  async close(): Promise<void> {
    for (const timer of this.#timers) clearTimeout(timer)
    await this.notifier.close()
  }
}

/** Starts the sandbox; resolves once it listens and `sandbox.json` is written. */
export async function startSandbox(options: SandboxOptions): Promise<RunningSandbox> {
  const sandbox = new SandboxServer({...options, timeScale: options.timeScale ?? 1})
  const server: Server = createServer((req, res) => {
    sandbox.handle(req, res).catch((error: Error) => {
      options.log?.(`internal error: ${error.stack ?? error.message}`)
      if (!res.headersSent) res.writeHead(500, {'content-type': 'application/json'})
      res.end(JSON.stringify({code: 500, msg: 'internal sandbox error', data: {}}))
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
    gateway_public_key_file: sandbox.gateway.publicKeyFile,
    merchants: [...sandbox.merchants.values()].map((m) => ({
      appid: m.appid,
      private_key_file: m.private_key_file,
      sign_scheme: m.sign_scheme,
    })),
  }
  writePrivateFile(join(options.dataDir, 'sandbox.json'), `${JSON.stringify(info, null, 2)}\n`)
  sandbox.notifier.resume()
  return {
    info,
    async close() {
      await sandbox.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
