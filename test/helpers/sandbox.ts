import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {request} from 'undici'

import {
  parsePrivateKey,
  parsePublicKey,
  sign,
  verify,
  newNonce,
  type SignScheme,
} from '../../src/lib/gateway/signing.js'
import {tempDir} from './shared.js'
import {compactTimestamp} from '../../src/lib/gateway/protocol/time.js'
import {SandboxControl} from '../../src/sandbox/control-client.js'
import {startSandbox, type RunningSandbox, type SandboxOptions} from '../../src/sandbox/server.js'

interface WireAnswer {
  status: number
  envelope: Record<string, unknown> & {code: number; sign: string; data: Record<string, unknown>}
  data: Record<string, unknown>
  /** Whether the envelope's signature verifies over data with the gateway key. */
  verified: boolean
}

/**
 * A client written from the API document and docs/design.md alone: sign the form parameters,
 * POST them, verify the answer. It is not gw's client; the sandbox is tested with it.
 */
export class Wire {
  readonly appid: string
  readonly #privateKey
  readonly #gatewayKey
  constructor(
    readonly sandbox: TestSandbox,
    appid?: string,
    readonly scheme: SignScheme = 'rsa-md5',
  ) {
    const merchant = appid ? sandbox.info.merchants.find((m) => m.appid === appid)! : sandbox.info.merchants[0]!
    this.appid = merchant.appid
    this.#privateKey = parsePrivateKey(readFileSync(merchant.private_key_file, 'utf8'))
    this.#gatewayKey = parsePublicKey(readFileSync(sandbox.info.gateway_public_key_file, 'utf8'))
  }

  signed(params: Record<string, string | number | undefined>): Record<string, string> {
    const full: Record<string, string> = {appid: this.appid, nonce_str: newNonce(), time_stamp: compactTimestamp()}
    for (const [k, v] of Object.entries(params)) if (v !== undefined) full[k] = String(v)
    full.sign = sign(full, this.#privateKey, this.scheme)
    return full
  }

  async call(operation: string, params: Record<string, string | number | undefined>): Promise<WireAnswer> {
    return this.raw(operation, new URLSearchParams(this.signed(params)).toString())
  }

  async raw(operation: string, body: string | Buffer, method = 'POST'): Promise<WireAnswer> {
    const response = await request(`${this.sandbox.info.base_url}/${operation}`, {
      method: method as 'POST',
      headers: {'content-type': 'application/x-www-form-urlencoded; charset=utf-8'},
      body: method === 'GET' ? undefined : body,
    })
    const envelope = (await response.body.json()) as WireAnswer['envelope']
    const verified =
      typeof envelope.sign === 'string' && verify(envelope.data ?? {}, envelope.sign, this.#gatewayKey, this.scheme)
    return {status: response.statusCode, envelope, data: envelope.data ?? {}, verified}
  }

  verifyNotification(body: string): boolean {
    const parsed = JSON.parse(body) as {data: Record<string, unknown>; sign: string}
    return verify(parsed.data, parsed.sign, this.#gatewayKey, this.scheme)
  }
}

export interface TestSandbox {
  info: RunningSandbox['info']
  dataDir: string
  close(): Promise<void>
  /** The control API client `gw sandbox pay` uses. */
  controls: SandboxControl
  control: SandboxControl['call']
  wire(appid?: string): Wire
}

export async function startTestSandbox(
  options: Partial<SandboxOptions> & {merchants?: unknown[]} = {},
): Promise<TestSandbox> {
  const dataDir = options.dataDir ?? tempDir('gw-sandbox-')
  if (options.merchants) writeFileSync(join(dataDir, 'merchants.json'), JSON.stringify({merchants: options.merchants}))
  const running = await startSandbox({port: 0, ...options, dataDir})
  const controls = new SandboxControl(running.info.origin)
  const sandbox: TestSandbox = {
    info: running.info,
    dataDir,
    close: () => running.close(),
    controls,
    control: (method, path, body) => controls.call(method, path, body),
    wire: (appid?: string) => new Wire(sandbox, appid),
  }
  return sandbox
}
