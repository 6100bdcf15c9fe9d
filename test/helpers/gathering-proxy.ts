import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'

/**
 * A proxy in front of the sandbox that holds each request of one operation until `count` of them
 * are waiting together, then passes them all on: requests sent at once get through, requests sent
 * one after another never gather (each waits for the one before it). After `patienceMs` it gives up
 * gathering and passes on what it holds, so that a client that asks one at a time still ends; the
 * test reads `mostTogether` to see which it was. Nothing here depends on how fast the machine is:
 * requests sent at once are all waiting, however long they took to come.
 */
export async function startGatheringProxy(target: string, operation: string, count: number, patienceMs = 20_000) {
  let waiting: (() => void)[] = []
  let mostTogether = 0
  let timer: NodeJS.Timeout | undefined
  const releaseAll = () => {
    clearTimeout(timer)
    timer = undefined
    const released = waiting
    waiting = []
    for (const release of released) release()
  }
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', async () => {
      const named = (req.url ?? '').split('?')[0]!.split('/').at(-1)!
      if (named === operation) {
        await new Promise<void>((resolve) => {
          waiting.push(resolve)
          mostTogether = Math.max(mostTogether, waiting.length)
          if (waiting.length >= count) releaseAll()
          else timer ??= setTimeout(releaseAll, patienceMs)
        })
      }
      const answer = await fetch(`${target}/${named}`, {
        method: req.method,
        headers: {'content-type': req.headers['content-type'] ?? ''},
        body: req.method === 'GET' ? undefined : Buffer.concat(chunks),
      })
      res.writeHead(answer.status, {'content-type': answer.headers.get('content-type') ?? 'application/json'})
      res.end(Buffer.from(await answer.arrayBuffer()))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}${new URL(target).pathname}`,
    /** The most requests of the operation that were waiting at one time. */
    get mostTogether() {
      return mostTogether
    },
    close: () =>
      new Promise<void>((resolve) => {
        releaseAll()
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
