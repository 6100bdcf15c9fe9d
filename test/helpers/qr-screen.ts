/** A QR code drawn with text, read back as a reader would see it on a terminal of the given theme. */
import jsQRModule from 'jsqr'

// jsqr is CommonJS with `export default` in its types: under NodeNext its function is `.default`.
const jsQR = jsQRModule as unknown as (typeof jsQRModule)['default']

/**
 * Decodes text drawn with half blocks: a drawn half is the terminal's text colour (dark on a
 * dark-on-light terminal, light on a light-on-dark one), the rest its background. Never tries
 * the inverted image: a code that only reads inverted is a failure. Also the quiet zone: the
 * light modules around the code, at the narrowest side.
 */
export function readDrawnQr(
  drawn: string,
  theme: 'dark-on-light' | 'light-on-dark',
): {text?: string; quietZone: number} {
  const rows = drawn.split('\n').filter((line) => /[█▀▄]/.test(line) || line.trim() === '')
  const width = Math.max(...rows.map((r) => [...r].length))
  const modules: boolean[][] = [] // true: drawn
  for (const row of rows) {
    const chars = [...row.padEnd(width, ' ')]
    modules.push(chars.map((c) => c === '█' || c === '▀'))
    modules.push(chars.map((c) => c === '█' || c === '▄'))
  }
  const drawnIsDark = theme === 'dark-on-light'
  const dark = modules.map((row) => row.map((d) => d === drawnIsDark))
  const firstDark = dark.findIndex((row) => row.some(Boolean))
  const lastDark = dark.length - 1 - [...dark].reverse().findIndex((row) => row.some(Boolean))
  const leftDark = Math.min(...dark.map((row) => (row.indexOf(true) === -1 ? Infinity : row.indexOf(true))))
  const rightDark = Math.min(
    ...dark.map((row) => (row.lastIndexOf(true) === -1 ? Infinity : row.length - 1 - row.lastIndexOf(true))),
  )
  const quietZone = Math.min(firstDark, dark.length - 1 - lastDark, leftDark, rightDark)
  const scale = 4
  const height = dark.length * scale
  const pixels = new Uint8ClampedArray(width * scale * height * 4)
  dark.forEach((row, y) =>
    row.forEach((isDark, x) => {
      for (let dy = 0; dy < scale; dy++)
        for (let dx = 0; dx < scale; dx++) {
          const at = ((y * scale + dy) * width * scale + x * scale + dx) * 4
          pixels.fill(isDark ? 0 : 255, at, at + 3)
          pixels[at + 3] = 255
        }
    }),
  )
  return {text: jsQR(pixels, width * scale, height, {inversionAttempts: 'dontInvert'})?.data, quietZone}
}
