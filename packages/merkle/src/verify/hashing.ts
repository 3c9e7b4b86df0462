import { concat } from './bytes.js'

/**
 * SHA-256 as the caller has it: WebCrypto's answers a promise (the browser has no other), while
 * node:crypto's answers at once. Either may be given where a promise is awaited.
 */
export type Sha256 = (bytes: Uint8Array<ArrayBuffer>) => Uint8Array | Promise<Uint8Array>

/**
 * A computation that needs SHA-256 digests, written once for both kinds of hash: it yields the
 * bytes to hash and is resumed with their digest. `runHashingSync` drives it with a synchronous
 * hash (node:crypto, for the server and the CLI), `runHashing` with one that may answer a
 * promise (WebCrypto, for the browser). The same steps, the same decisions, either way.
 */
export type Hashing<T> = Generator<Uint8Array<ArrayBuffer>, T, Uint8Array>

/** Runs `steps` with a hash that answers at once. */
export function runHashingSync<T>(steps: Hashing<T>, sha256: (bytes: Uint8Array<ArrayBuffer>) => Uint8Array): T {
  let step = steps.next()
  while (step.done !== true) step = steps.next(sha256(step.value))
  return step.value
}

/** Runs `steps` with a hash that may answer a promise; a digest given at once is taken at once. */
export async function runHashing<T>(steps: Hashing<T>, sha256: Sha256): Promise<T> {
  let step = steps.next()
  while (step.done !== true) {
    const digest = sha256(step.value)
    step = steps.next(digest instanceof Promise ? await digest : digest)
  }
  return step.value
}

/** SHA-256 with WebCrypto (`crypto.subtle`), which browsers and Node.js both have. */
export const subtleSha256: Sha256 = async (bytes) => new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))

/**
 * RFC 9162 §2.1.1's domain separation: a leaf's hash is SHA-256(0x00 ‖ leaf bytes), an interior
 * node's SHA-256(0x01 ‖ left ‖ right), so that no leaf can be taken for a node.
 */
export const LEAF_PREFIX = 0x00
const NODE_PREFIX = 0x01

/** What a leaf's hash is the SHA-256 of. */
export function leafInput(leaf: Uint8Array): Uint8Array<ArrayBuffer> {
  return concat(Uint8Array.of(LEAF_PREFIX), leaf)
}

/**
 * What an interior node's hash is the SHA-256 of. `allocate` makes its bytes: the Node.js entry
 * passes `Buffer.allocUnsafe`, whose pooled memory saves about a third of a node hash's cost when
 * the projector grows its tree.
 */
export function nodeInput(left: Uint8Array, right: Uint8Array,
  allocate: (size: number) => Uint8Array<ArrayBuffer> = (size) => new Uint8Array(size)): Uint8Array<ArrayBuffer> {
  const input = allocate(1 + left.length + right.length)
  input[0] = NODE_PREFIX
  input.set(left, 1)
  input.set(right, 1 + left.length)
  return input
}
