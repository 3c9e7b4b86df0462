/**
 * Bytes as the audit contract writes them (docs/audit.md#the-tree): hashes as lowercase hex,
 * keys and signatures as standard padded base64, text as UTF-8. Written over Uint8Array, with no
 * Buffer, so that a browser runs the same code as the server.
 */

const HEX = /^(?:[0-9a-f]{2})*$/
const HEX_HASH = /^[0-9a-f]{64}$/
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/** Lowercase hex of an even length as bytes; null for anything else. */
export function hexToBytes(hex: string): Uint8Array<ArrayBuffer> | null {
  if (!HEX.test(hex)) return null
  const bytes = new Uint8Array(hex.length / 2)
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16)
  return bytes
}

/** A hash as it travels: 64 lowercase hex characters as 32 bytes; null for anything else. */
export function hashFromHex(text: string): Uint8Array<ArrayBuffer> | null {
  return HEX_HASH.test(text) ? hexToBytes(text) : null
}

export function bytesToHex(bytes: Uint8Array): string {
  let hex = ''
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0')
  return hex
}

/**
 * Standard base64 with its padding, in the one form an encoder writes (unused bits zero), as
 * bytes; null for anything else, so that one value has one text.
 */
export function base64ToBytes(text: string): Uint8Array<ArrayBuffer> | null {
  if (!BASE64.test(text)) return null
  const binary = atob(text)
  if (btoa(binary) !== text) return null
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return bytes
}

export function utf8(text: string): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(text)
}

export function concat(...parts: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0))
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.length
  }
  return out
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i])
}
