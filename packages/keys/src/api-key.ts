import { hash, randomInt, timingSafeEqual } from 'node:crypto'

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const ID_LENGTH = 12
// 43 base62 characters carry 43 × log2(62) ≈ 256.03 bits.
const SECRET_LENGTH = 43
// The key format's one home: `wb_`, the kind, `_`, then the id and the secret in base62.
const KEY_KINDS = '(live|test)'
const KEY_BODY = `([0-9A-Za-z]{${ID_LENGTH}})([0-9A-Za-z]{${SECRET_LENGTH}})`
const KEY_PATTERN = new RegExp(`^wb_${KEY_KINDS}_${KEY_BODY}$`)
// The same, found anywhere in a text, but not inside a longer run of key characters.
const KEY_TOKEN = new RegExp(`(?<![0-9A-Za-z_])wb_${KEY_KINDS}_${KEY_BODY}(?![0-9A-Za-z])`, 'g')

/** A key as handed to its holder once; only `hash` is ever stored. */
export interface NewApiKey {
  readonly key: string
  readonly keyId: string
  readonly hash: string
  readonly test: boolean
}

function base62(length: number): string {
  // randomInt is uniform (rejection sampling inside), so every character carries log2(62) bits.
  let out = ''
  for (let i = 0; i < length; i += 1) out += BASE62.charAt(randomInt(62))
  return out
}

/** `wb_live_<id><secret>` or `wb_test_<id><secret>`: a 12-character public id, then the secret. */
export function generateApiKey(test: boolean): NewApiKey {
  const keyId = base62(ID_LENGTH)
  const key = `wb_${test ? 'test' : 'live'}_${keyId}${base62(SECRET_LENGTH)}`
  return { key, keyId, hash: hashApiKey(key), test }
}

/** sha256 (hex) of the whole key: the only form of it that is stored. */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex')
}

/** The public id embedded in a well-formed key; null for anything else. */
export function parseApiKey(key: string): { keyId: string; test: boolean } | null {
  const match = KEY_PATTERN.exec(key)
  if (match === null) return null
  return { keyId: match[2] as string, test: match[1] === 'test' }
}

/** Constant-time comparison of a presented key against a stored hash. */
export function keyMatchesHash(key: string, storedHash: string): boolean {
  // One-shot, as bytes: no hash object and no hex round trip on every request.
  const presented = hash('sha256', key, 'buffer')
  const stored = Buffer.from(storedHash, 'hex')
  return presented.length === stored.length && timingSafeEqual(presented, stored)
}

/**
 * Every key-shaped token in `text`, in order of appearance. The format has a fixed prefix and a
 * fixed length, so this finds exactly what could be a key and nothing else: used to find keys
 * exposed in the bytes of a plain-HTTP request, wherever in them they were put.
 */
export function findKeyTokens(text: string): string[] {
  return [...text.matchAll(KEY_TOKEN)].map((match) => match[0])
}

/** `text` with every key-shaped token cut to its kind (`wb_live_…`), for logs. */
export function redactKeyTokens(text: string): string {
  return text.replace(KEY_TOKEN, (_token, kind: string) => `wb_${kind}_…`)
}
