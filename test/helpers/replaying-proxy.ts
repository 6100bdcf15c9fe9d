import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'

/**
 * A proxy in front of the sandbox that keeps the gateway's signed answers and, once told,
 * answers an operation with one it kept instead of passing the request on: an answer that
 * verifies, about another request (a replay, a cache mixing answers up).
 */
export async function startReplayingProxy(target: string) {
  const kept = new Map<string, string[]>()
  const replaying = new Map<string, {body: string; forward: boolean}>()
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', async () => {
      const operation = (req.url ?? '').split('?')[0]!.split('/').at(-1)!
      const replay = replaying.get(operation)
      const pass = () =>
        fetch(`${target}/${operation}`, {
          method: req.method,
          headers: {'content-type': req.headers['content-type'] ?? ''},
          body: req.method === 'GET' ? undefined : Buffer.concat(chunks),
        })
      if (replay !== undefined) {
        if (replay.forward) await pass()
        res.writeHead(200, {'content-type': 'application/json'})
        res.end(replay.body)
        return
      }
      const answer = await pass()
      const body = await answer.text()
      kept.set(operation, [...(kept.get(operation) ?? []), body])
      res.writeHead(answer.status, {'content-type': 'application/json'})
      res.end(body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}/Gateway`,
    /** The answers the sandbox gave to an operation, in order. */
    kept: (operation: string) => kept.get(operation) ?? [],
    /**
     * From now on, answers `operation` with `body`: without passing the request on, or, with
     * `forward`, after passing it on (the gateway acts on it; its answer is swapped).
     */
    replay: (operation: string, body: string, forward = false) => replaying.set(operation, {body, forward}),
    /** From now on, passes every request on again, and answers with the gateway's own answers. */
    passOn: () => replaying.clear(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
