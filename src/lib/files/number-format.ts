/**
 * A number of a workbook cell as the text its number format shows, as far as the text matters
 * to gw: the decimals (rounded as Excel rounds, from the 15 significant digits it keeps), zero
 * padding (`000000`), literal text around the number (`"INV-"0`, `[$฿-41E]#,##0.00`) and
 * percentages. Thousands separators are left out, and a negative number keeps its minus sign
 * whatever its format's negative section shows. General (no format) shows the number in full,
 * without float noise or an exponent. Amounts are never read from this text (workbook-cells).
 */

/** A decimal string (no exponent) of `value` rounded half away from zero to `decimals` places, from its 15 significant digits. */
function decimalText(value: number, decimals: number | undefined): string {
  const negative = value < 0
  const [mantissa, exponentText] = Math.abs(value).toPrecision(15).split('e')
  const [whole, fraction = ''] = mantissa!.split('.')
  let digits = `${whole}${fraction}`
  let point = whole!.length + Number(exponentText ?? 0)
  if (point < 0) {
    digits = `${'0'.repeat(-point)}${digits}`
    point = 0
  }
  digits = digits.padEnd(point, '0')
  let [int, frac] = [digits.slice(0, point) || '0', digits.slice(point)]
  if (decimals !== undefined) {
    const kept = `${int}${frac.padEnd(decimals, '0').slice(0, decimals)}`
    const roundUp = (frac[decimals] ?? '0') >= '5'
    const scaled = (BigInt(kept) + (roundUp ? 1n : 0n)).toString().padStart(decimals + 1, '0')
    int = scaled.slice(0, scaled.length - decimals)
    frac = scaled.slice(scaled.length - decimals)
  } else {
    frac = frac.replace(/0+$/, '')
  }
  const text = frac ? `${int}.${frac}` : int
  return negative && /[1-9]/.test(text) ? `-${text}` : text
}

/** The parts of a format section: literal text before and after, and the number's shape. */
interface Shape {
  prefix: string
  suffix: string
  /** Digits before the point at least (zero padding). */
  minInteger: number
  /** Decimals shown at most, and at least (`0.0#`: 1 to 2). */
  maxDecimals: number
  minDecimals: number
  percent: boolean
}

function shapeOf(section: string): Shape | undefined {
  // Literal text: "quoted", \x escaped, [$X-locale] currency; other [..] (colours, conditions) and _x / *x spacing dropped.
  const tokens = section.match(/"[^"]*"|\\.|\[\$[^\]-]*(?:-[^\]]*)?\]|\[[^\]]*\]|[_*].|[0#?.,%]+|./g) ?? []
  const shape: Shape = {prefix: '', suffix: '', minInteger: 0, maxDecimals: 0, minDecimals: 0, percent: false}
  let number = ''
  for (const token of tokens) {
    const literal = token.startsWith('"')
      ? token.slice(1, -1)
      : token.startsWith('\\')
        ? token.slice(1)
        : token.startsWith('[$')
          ? token.slice(2).split(/[-\]]/)[0]!
          : /^[[_*]/.test(token)
            ? ''
            : /^[0#?.,%]+$/.test(token)
              ? undefined
              : token
    if (literal === undefined) {
      number += token
      if (token.includes('%')) shape.percent = true
    } else if (number.replace(/[%,]/g, '')) shape.suffix += literal
    else shape.prefix += literal
  }
  if (!/[0#?]/.test(number)) return undefined
  const [integer, fraction = ''] = number.replace(/[%,]/g, '').split('.')
  shape.minInteger = (integer!.match(/0/g) ?? []).length
  shape.maxDecimals = (fraction.match(/[0#?]/g) ?? []).length
  shape.minDecimals = (fraction.match(/0/g) ?? []).length
  return shape
}

/** The number as its format shows it (General and formats gw does not read: the number in full). */
export function formatNumber(value: number, numFmt?: string): string {
  if (!Number.isFinite(value)) return String(value)
  // The first section's shape, and a negative keeps its sign: a format's negative section
  // (`;[RED]#,##0.00`, `;(#,##0.00)`) shows it without one, and the text must not lose it.
  const section = (numFmt ?? '').split(';')[0]!
  const shape = /^(general|@)?$/i.test(section.trim()) ? undefined : shapeOf(section)
  if (!shape) return decimalText(value, undefined)
  let text = decimalText(shape.percent ? value * 100 : value, shape.maxDecimals)
  const [int, frac = ''] = text.replace('-', '').split('.')
  const trimmed = frac.replace(/0+$/, '').padEnd(shape.minDecimals, '0')
  const sign = text.startsWith('-') ? '-' : ''
  text = `${int!.padStart(shape.minInteger, '0')}${trimmed ? `.${trimmed}` : ''}`
  return `${sign}${shape.prefix}${text}${shape.percent ? '%' : ''}${shape.suffix}`
}
