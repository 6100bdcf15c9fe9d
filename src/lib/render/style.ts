/** Minimal terminal styling that honours NO_COLOR and plain pipes. */
/** A stream as far as colours go: whether it is a terminal. */
type Stream = {isTTY?: boolean}

function colorEnabled(stream: Stream = process.stdout): boolean {
  if (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '') return false
  if (process.env.FORCE_COLOR && process.env.FORCE_COLOR !== '0') return true
  return Boolean(stream.isTTY)
}

const paint =
  (open: number, close: number) =>
  (text: string, stream: Stream = process.stdout) =>
    colorEnabled(stream) ? `\u001B[${open}m${text}\u001B[${close}m` : text

export const bold = paint(1, 22)
export const dim = paint(2, 22)
export const red = paint(31, 39)
export const green = paint(32, 39)
export const yellow = paint(33, 39)
export const cyan = paint(36, 39)
