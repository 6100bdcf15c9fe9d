/** What the commands that serve (the notification listener, the sandbox) share: loopback, and listen errors in words. */
import {usageError} from '../errors.js'
import {quoted} from '../untrusted.js'

const LOOPBACK = ['127.0.0.1', 'localhost', '::1']
const HOST_ADVICE = 'Use 127.0.0.1 (this machine only) or 0.0.0.0 (every interface).'

export const isLoopbackHost = (host: string) => LOOPBACK.includes(host)

const WILDCARD = ['0.0.0.0', '::']

/** --host given: never empty (an empty host listens on every interface without saying so). */
export function checkHost(host: string): void {
  if (!host.trim()) throw usageError('--host is empty.', HOST_ADVICE)
}

/** Whether `url` names the server listening on `host` and `port`: a forward to it would loop. */
export function isItself(url: URL, host: string, port: string): boolean {
  const target = url.port || (url.protocol === 'https:' ? '443' : '80')
  const name = url.hostname.replace(/^\[|\]$/g, '')
  return (
    target === port &&
    (name === host ||
      (WILDCARD.includes(host) && isLoopbackHost(name)) ||
      (name === 'localhost' && isLoopbackHost(host)))
  )
}

/** A server that could not listen, as the error to end with: the port is taken or not allowed, else as it came. */
export function listenError(error: unknown, host: string, port: number): unknown {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'EADDRINUSE') {
    return usageError(
      `port ${port} on ${host} is in use.`,
      'Pick another: --port with another number, or --port 0 for any free one.',
    )
  }
  if (code === 'EACCES') return usageError(`not allowed to listen on ${host}:${port}.`, 'Use a port above 1024.')
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EADDRNOTAVAIL' || code === 'EINVAL')
    return usageError(`--host ${quoted(host)} is not an address of this machine.`, HOST_ADVICE)
  return error
}
