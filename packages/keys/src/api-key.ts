import { createHash, randomInt, timingSafeEqual } from 'node:crypto'

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const ID_LENGTH = 12
// 43 base62 characters carry 43 × log2(62) ≈ 256.03 bits.
const SECRET_LENGTH = 43
const KEY_PATTERN = /^wb_(live|test)_([0-9A-Za-z]{12})([0-9A-Za-z]{43})$/

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
  return createHash('sha256').update(key, 'utf8').digest('hex')
}

/** The public id embedded in a well-formed key; null for anything else. */
export function parseApiKey(key: string): { keyId: string; test: boolean } | null {
  const match = KEY_PATTERN.exec(key)
  if (match === null) return null
  return { keyId: match[2] as string, test: match[1] === 'test' }
}

/** Constant-time comparison of a presented key against a stored hash. */
export function keyMatchesHash(key: string, storedHash: string): boolean {
  const presented = Buffer.from(hashApiKey(key), 'hex')
  const stored = Buffer.from(storedHash, 'hex')
  return presented.length === stored.length && timingSafeEqual(presented, stored)
}
