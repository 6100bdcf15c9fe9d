/** The form body of an operation, decoded strictly: malformed escapes and invalid UTF-8 are the gateway's errors, not replacement characters. */

export class FormError extends Error {
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
