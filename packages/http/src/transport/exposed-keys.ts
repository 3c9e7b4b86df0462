import { findKeyTokens } from '@waybill/keys'

/** More candidates than any honest client sends; past it, a request stuffed with keys costs no more reads. */
const MAX_EXPOSED_KEYS = 16
const PERCENT = /%([0-9A-Fa-f]{2})/g
// HTTP Basic credentials (`curl -u KEY:`) carry the key base64-encoded.
const BASIC = /\bBasic[ \t]+([A-Za-z0-9+/=]{8,})/gi

/**
 * Every API key a request put on the wire, from its raw bytes: in any header (Service-Api-Key,
 * Authorization, X-Api-Key, a repeated header Node would have folded), in the query string, in
 * the body, percent-encoded, or as HTTP Basic credentials. Read as latin1, so every byte is one
 * character and nothing is lost to decoding.
 */
export function exposedKeysIn(bytes: Buffer | string): string[] {
  const text = typeof bytes === 'string' ? bytes : bytes.toString('latin1')
  const found = new Set(findKeyTokens(text))
  if (text.includes('%')) {
    for (const key of findKeyTokens(text.replace(PERCENT, (_all, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))))) found.add(key)
  }
  for (const [, encoded = ''] of text.matchAll(BASIC)) {
    for (const key of findKeyTokens(Buffer.from(encoded, 'base64').toString('latin1'))) found.add(key)
  }
  return [...found].slice(0, MAX_EXPOSED_KEYS)
}

/** A request's head as it came on the wire, rebuilt from what Node parsed (for requests Fastify sees). */
export function rawHead(method: string, url: string, rawHeaders: readonly string[]): string {
  const lines = [`${method} ${url} HTTP/1.1`]
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) lines.push(`${rawHeaders[i] ?? ''}: ${rawHeaders[i + 1] ?? ''}`)
  return lines.join('\r\n')
}
