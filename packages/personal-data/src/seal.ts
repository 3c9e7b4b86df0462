import { createCipheriv, createDecipheriv, createHmac, createSecretKey, type KeyObject } from 'node:crypto'
import { setImmediate } from 'node:timers/promises'
import { canonicalJson, type SealedPersonal } from '@waybill/domain'

/** One order's key: its id (named in every sealed part) and its 32 secret bytes. */
export interface OrderKey {
  readonly id: string
  readonly secret: Buffer
}

interface DerivedKeys {
  readonly secret: Buffer
  /** AES-256-GCM, as a key object: a cipher or decipher made from one skips importing the raw bytes again. */
  readonly encryption: KeyObject
  /** HMAC-SHA256 that picks each nonce from what it seals (below); derived when first sealing. */
  nonce: KeyObject | null
  /** HKDF's pseudorandom key, which the nonce key is expanded from when first sealing. */
  readonly extracted: Buffer
}

const IV_BYTES = 12
const TAG_BYTES = 16
/** An empty salt is HashLen zero bytes (RFC 5869 §2.2). */
const NO_SALT = Buffer.alloc(32)
const FIRST_BLOCK = Buffer.of(1)

// The two keys of an order's secret, by HKDF-SHA256 (RFC 5869) with distinct labels; bounded
// (a few hundred bytes each), as only the orders being written or read at once are held.
const derived = new Map<string, DerivedKeys>()
const DERIVED_MAX = 4096

/**
 * HKDF-SHA256 (RFC 5869) of an order's secret, no salt, 32 bytes a label: one HMAC to extract
 * (shared by both labels) and one to expand (32 bytes are a single block: T(1) = HMAC(PRK, info
 * || 0x01)), which is what `hkdfSync('sha256', secret, '', 'waybill personal data <label>', 32)`
 * computes (a test holds the two equal) at a third of its cost: the ingress derives both keys
 * for every new order, a rebuild the encryption key for every order it reads.
 */
function extract(secret: Uint8Array): Buffer {
  return createHmac('sha256', NO_SALT).update(secret).digest()
}

function expand(extracted: Buffer, label: 'encryption' | 'nonce'): Buffer {
  return createHmac('sha256', extracted).update(`waybill personal data ${label}`).update(FIRST_BLOCK).digest()
}

/** Both keys' bytes, as `keysOf` derives them (for the test that holds them equal to hkdfSync's). */
export function derivedBytes(secret: Uint8Array): { readonly encryption: Buffer; readonly nonce: Buffer } {
  const extracted = extract(secret)
  return { encryption: expand(extracted, 'encryption'), nonce: expand(extracted, 'nonce') }
}

function encryptionKey(secret: Uint8Array): KeyObject {
  return createSecretKey(expand(extract(secret), 'encryption'))
}

function keysOf(key: OrderKey): DerivedKeys {
  const cached = derived.get(key.id)
  if (cached?.secret.equals(key.secret) === true) return cached
  const extracted = extract(key.secret)
  const keys: DerivedKeys = { secret: Buffer.from(key.secret), encryption: createSecretKey(expand(extracted, 'encryption')), nonce: null, extracted }
  if (derived.size >= DERIVED_MAX) derived.clear()
  derived.set(key.id, keys)
  return keys
}

function nonceKey(keys: DerivedKeys): KeyObject {
  keys.nonce ??= createSecretKey(expand(keys.extracted, 'nonce'))
  return keys.nonce
}

/** Forgets the derived keys of a destroyed key, so that no copy outlives it in this process. */
export function forgetKey(keyId: string): void {
  derived.delete(keyId)
}

/**
 * Seals `plain` under the order's key, bound to `context` (the stream and what the bytes are):
 * AES-256-GCM with the context as associated data, so a sealed part moved to another event or
 * order does not open. The nonce is the first 12 bytes of an HMAC of the context and the bytes
 * (a synthetic IV, as in RFC 5297): sealing is deterministic for one key, so an exact retry of a
 * delivery stores the same bytes and keeps its deterministic event id, and two different
 * plaintexts never share a nonce. What it reveals: that two sealed values of one order are equal.
 */
export function sealBytes(key: OrderKey, context: string, plain: Uint8Array): { readonly iv: Buffer; readonly box: Buffer } {
  const keys = keysOf(key)
  const iv = createHmac('sha256', nonceKey(keys)).update(context).update('\0').update(plain).digest().subarray(0, IV_BYTES)
  const cipher = createCipheriv('aes-256-gcm', keys.encryption, iv)
  cipher.setAAD(Buffer.from(context))
  const box = Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()])
  return { iv, box }
}

/** The bytes `sealBytes` sealed; throws when they, their nonce or their context were changed. */
export function openBytes(key: OrderKey, context: string, iv: Uint8Array, box: Uint8Array): Buffer {
  return openWith(keysOf(key).encryption, context, iv, box)
}

function openWith(encryption: KeyObject, context: string, iv: Uint8Array, box: Uint8Array): Buffer {
  if (iv.length !== IV_BYTES || box.length < TAG_BYTES) throw new SealBrokenError('a sealed value of the wrong length')
  const decipher = createDecipheriv('aes-256-gcm', encryption, iv)
  decipher.setAAD(Buffer.from(context))
  decipher.setAuthTag(box.subarray(box.length - TAG_BYTES))
  try {
    return Buffer.concat([decipher.update(box.subarray(0, box.length - TAG_BYTES)), decipher.final()])
  } catch {
    throw new SealBrokenError('a sealed value does not open with its key: it was changed, or moved from another event')
  }
}

/** Seals a JSON value (its canonical JSON) as an event's personal part. */
export function sealJson(key: OrderKey, context: string, value: object): SealedPersonal {
  const { iv, box } = sealBytes(key, context, Buffer.from(canonicalJson(value)))
  return { key: key.id, iv: iv.toString('base64url'), box: box.toString('base64url') }
}

/** The JSON value of a sealed personal part. */
export function openJson(key: OrderKey, context: string, sealed: SealedPersonal): Record<string, unknown> {
  return openJsonWith(key.id, keysOf(key).encryption, context, sealed)
}

function openJsonWith(keyId: string, encryption: KeyObject, context: string, sealed: SealedPersonal): Record<string, unknown> {
  return JSON.parse(openTextWith(keyId, encryption, context, sealed)) as Record<string, unknown>
}

function openTextWith(keyId: string, encryption: KeyObject, context: string, sealed: SealedPersonal): string {
  if (sealed.key !== keyId) throw new SealBrokenError(`sealed with key ${sealed.key}, not with the order's key ${keyId}`)
  return openWith(encryption, context, Buffer.from(sealed.iv, 'base64url'), Buffer.from(sealed.box, 'base64url')).toString('utf8')
}

/**
 * `openJson` for the sealed parts of one order read many at a time (a rebuild): its encryption
 * key derived once, held by the function returned and by nothing else, so that it is gone with
 * the reader rather than kept in this module's shared cache of the orders being written.
 */
export function jsonOpener(key: OrderKey): (context: string, sealed: SealedPersonal) => Record<string, unknown> {
  const encryption = encryptionKey(key.secret)
  return (context, sealed) => openJsonWith(key.id, encryption, context, sealed)
}

/** `jsonOpener`, answering the JSON's text (the opening thread hands it on as it is). */
export function textOpener(key: OrderKey): (context: string, sealed: SealedPersonal) => string {
  const encryption = encryptionKey(key.secret)
  return (context, sealed) => openTextWith(key.id, encryption, context, sealed)
}

/** An image as its blob keeps it: the nonce, then the sealed bytes and their tag. */
export function sealImage(key: OrderKey, context: string, image: Uint8Array): Buffer {
  const { iv, box } = sealBytes(key, context, image)
  return Buffer.concat([iv, box])
}

/** The image a blob holds, sealed by `sealImage`. */
export function openImage(key: OrderKey, context: string, blob: Uint8Array): Buffer {
  return openBytes(key, context, blob.subarray(0, IV_BYTES), blob.subarray(IV_BYTES))
}

/**
 * The image a blob holds, from the blob's pieces as read, opened a piece at a time with a turn of
 * the event loop between pieces (a 5 MiB image holds other requests for a fraction of a
 * millisecond at a time). Resolves only once the tag checked: no byte of a changed blob is served.
 */
export async function openImagePieces(key: OrderKey, context: string, pieces: readonly Buffer[]): Promise<Buffer[]> {
  const blob = pieces.length === 1 ? pieces[0] as Buffer : Buffer.concat(pieces)
  if (blob.length < IV_BYTES + TAG_BYTES) throw new SealBrokenError('a sealed image of the wrong length')
  const decipher = createDecipheriv('aes-256-gcm', keysOf(key).encryption, blob.subarray(0, IV_BYTES))
  decipher.setAAD(Buffer.from(context))
  decipher.setAuthTag(blob.subarray(blob.length - TAG_BYTES))
  const body = blob.subarray(IV_BYTES, blob.length - TAG_BYTES)
  const opened: Buffer[] = []
  for (let at = 0; at < body.length; at += OPEN_PIECE) {
    if (at > 0) await setImmediate()
    opened.push(decipher.update(body.subarray(at, at + OPEN_PIECE)))
  }
  try {
    opened.push(decipher.final())
  } catch {
    throw new SealBrokenError('a sealed image does not open with its key: it was changed, or moved from another order')
  }
  return opened
}

/** Bytes of an image opened between two turns of the event loop. */
const OPEN_PIECE = 256 * 1024

/** A sealed value that does not open with the key it names: changed behind the store's back. */
export class SealBrokenError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'SealBrokenError'
  }
}
