import {createServer, type IncomingMessage} from 'node:http'
import type {AddressInfo} from 'node:net'

import {HANG_MS} from './shared.js'

interface Received {
  headers: IncomingMessage['headers']
  body: string
}

/** A notify_url endpoint for tests: answers with `reply(n)` for the n-th delivery (0-based). */
export async function startReceiver(reply: (n: number) => {status: number; body: string}) {
  const received: Received[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const n = received.length
      received.push({headers: req.headers, body: Buffer.concat(chunks).toString('utf8')})
      const {status, body} = reply(n)
      res.writeHead(status, {'content-type': 'application/json'})
      res.end(body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** Resolves with what `probe` gives once it gives something (neither undefined nor false); throws if it never does (a hang). */
export async function waitFor<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = HANG_MS,
  intervalMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined && value !== false) return value
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
}
