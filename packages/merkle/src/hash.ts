import { createHash, hash } from 'node:crypto'

/** A SHA-256 digest: 32 bytes. */
export type Hash = Buffer

/**
 * RFC 9162 §2.1.1: a leaf's hash is SHA-256(0x00 ‖ leaf bytes). A string is the leaf's text,
 * hashed as UTF-8 without a copy of its bytes first. One-shot `crypto.hash` over one input: a
 * hash object and its updates cost about 1.6× as much per leaf (measured on an audit leaf).
 */
export function leafHash(leaf: Uint8Array | string): Hash {
  return typeof leaf === 'string'
    ? hash('sha256', `\u0000${leaf}`, 'buffer')
    : hash('sha256', Buffer.concat([LEAF_PREFIX, leaf], leaf.length + 1), 'buffer')
}

/** RFC 9162 §2.1.1: an interior node's hash is SHA-256(0x01 ‖ left ‖ right). */
export function nodeHash(left: Uint8Array, right: Uint8Array): Hash {
  return hash('sha256', Buffer.concat([NODE_PREFIX, left, right], left.length + right.length + 1), 'buffer')
}

/** RFC 9162 §2.1.1: the root of the empty tree is SHA-256 of the empty string. */
export const EMPTY_ROOT: Hash = createHash('sha256').digest()

const LEAF_PREFIX = Buffer.from([0])
const NODE_PREFIX = Buffer.from([1])

const HEX_HASH = /^[0-9a-f]{64}$/

/** A hash as it travels (lowercase hex, 64 characters). */
export function toHex(hash: Uint8Array): string {
  return Buffer.from(hash).toString('hex')
}

/** Lowercase hex of 64 characters as a hash; null for anything else. */
export function fromHex(text: string): Hash | null {
  return HEX_HASH.test(text) ? Buffer.from(text, 'hex') : null
}
