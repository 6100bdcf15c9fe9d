import {type Server, type Socket, connect, createServer} from 'node:net'
import type {AddressInfo} from 'node:net'

/**
 * A TCP forwarder in front of the sandbox: the same gateway at an address of its own, which the
 * test can take down (connections refused, as when a gateway is unreachable) and bring up again,
 * without gw seeing another base URL (another gateway).
 */
export async function startForwarder(
  baseUrl: string,
): Promise<{baseUrl: string; down(): Promise<void>; up(): Promise<void>; close(): Promise<void>}> {
  const target = new URL(baseUrl)
  const sockets = new Set<Socket>()
  let server: Server
  const listen = async (port: number) => {
    server = createServer((client) => {
      const upstream = connect(Number(target.port), target.hostname)
      for (const socket of [client, upstream]) {
        sockets.add(socket)
        socket.on('close', () => sockets.delete(socket))
        socket.on('error', () => socket.destroy())
      }
      client.pipe(upstream).pipe(client)
    })
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
    return (server.address() as AddressInfo).port
  }
  const port = await listen(0)
  const down = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy()
      server.close(() => resolve())
    })
  return {
    baseUrl: `http://127.0.0.1:${port}${target.pathname}`,
    down,
    up: async () => void (await listen(port)),
    close: () => (server.listening ? down() : Promise.resolve()),
  }
}
