import { hash } from 'node:crypto'
import { hashFromHex } from './verify/bytes.js'
import { LEAF_PREFIX, leafInput, nodeInput } from './verify/hashing.js'

/** A SHA-256 digest: 32 bytes. */
export type Hash = Buffer

/** The leaf prefix as the one character whose UTF-8 is that byte. */
const LEAF_TEXT_PREFIX = String.fromCharCode(LEAF_PREFIX)

/**
 * RFC 9162 §2.1.1: a leaf's hash is SHA-256(0x00 ‖ leaf bytes). A string is the leaf's text,
 * hashed as UTF-8 without a copy of its bytes first. One-shot `crypto.hash` over one input: a
 * hash object and its updates cost about 1.6× as much per leaf (measured on an audit leaf).
 */
export function leafHash(leaf: Uint8Array | string): Hash {
  return typeof leaf === 'string' ? hash('sha256', LEAF_TEXT_PREFIX + leaf, 'buffer') : sha256(leafInput(leaf))
}

/** Pooled and not zeroed: nodeInput writes every byte. */
const allocateUnsafe = (size: number): Buffer<ArrayBuffer> => Buffer.allocUnsafe(size)

/** RFC 9162 §2.1.1: an interior node's hash is SHA-256(0x01 ‖ left ‖ right). */
export function nodeHash(left: Uint8Array, right: Uint8Array): Hash {
  return sha256(nodeInput(left, right, allocateUnsafe))
}

/** RFC 9162 §2.1.1: the root of the empty tree is SHA-256 of the empty string. */
export const EMPTY_ROOT: Hash = sha256(new Uint8Array(0))

/** SHA-256 with node:crypto, at once: what this entry runs the shared steps (./verify/) with. */
export function sha256(bytes: Uint8Array): Hash {
  return hash('sha256', bytes, 'buffer')
}

/** A hash as it travels (lowercase hex, 64 characters). */
export function toHex(hash: Uint8Array): string {
  return Buffer.from(hash).toString('hex')
}

/** Lowercase hex of 64 characters as a hash; null for anything else. */
export function fromHex(text: string): Hash | null {
  const bytes = hashFromHex(text)
  return bytes === null ? null : Buffer.from(bytes.buffer)
}
