import { createHash } from 'node:crypto'
import type { ImageMediaType } from './events.js'
import { IMAGE_MAX_BASE64_LENGTH, LIMITS } from './limits.js'

/** An image taken from a data URL: its bytes, their sha256 (hex) and its media type. */
export interface DecodedImage {
  readonly media_type: ImageMediaType
  readonly sha256: string
  readonly bytes: Buffer
}

export const IMAGE_MEDIA_TYPES: readonly ImageMediaType[] = ['image/jpeg', 'image/png', 'image/webp']

// Scheme, media type and the base64 token are case-insensitive (RFC 2397, RFC 2045 §5.1).
const PREFIX = /^data:([^;,]*);base64,/i

const RIFF = Buffer.from('RIFF', 'latin1')
const WEBP = Buffer.from('WEBP', 'latin1')
const MAGIC: Record<ImageMediaType, (bytes: Buffer) => boolean> = {
  'image/jpeg': (bytes) => bytes.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff])),
  'image/png': (bytes) => bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/webp': (bytes) => bytes.subarray(0, 4).equals(RIFF) && bytes.subarray(8, 12).equals(WEBP),
}

function isImageMediaType(value: string): value is ImageMediaType {
  return (IMAGE_MEDIA_TYPES as readonly string[]).includes(value)
}

export type ImageDecoding = { readonly ok: true; readonly image: DecodedImage } | { readonly ok: false; readonly reason: string }

const refuse = (reason: string): ImageDecoding => ({ ok: false, reason })

/**
 * Checks and decodes `data:<media_type>;base64,<data>`. The size is judged from the base64 text
 * before anything is decoded, so an oversized image costs no allocation; the base64 must be
 * canonical (RFC 4648 alphabet, `=` padding to a multiple of 4, zero pad bits, no white space);
 * the decoded bytes must start with the magic signature of the declared media type.
 *
 * Canonical means that encoding the decoded bytes again gives the very text: Node's decoder is
 * lenient (it skips white space and foreign characters, takes `-_`, stops at `=`), and its encoder
 * writes only the canonical form, so the one comparison refuses every other spelling. Both run
 * natively, about 2 ms for a 5 MiB image, where a regular expression over the alphabet took
 * 35–75 ms on the thread every request shares (docs/contract.md#limits).
 */
export function decodeImageDataUrl(text: string): ImageDecoding {
  const prefix = PREFIX.exec(text)
  if (prefix === null) return refuse('must be a data URL: data:<media_type>;base64,<data>')
  const mediaType = (prefix[1] as string).toLowerCase()
  if (!isImageMediaType(mediaType)) return refuse(`media type must be one of ${IMAGE_MEDIA_TYPES.join(', ')}`)
  const base64 = text.slice(prefix[0].length)
  const tooLarge = refuse(`image must be at most ${LIMITS.imageMaxBytes} bytes`)
  if (base64.length > IMAGE_MAX_BASE64_LENGTH) return tooLarge
  const notStrict = refuse(`data must be strict base64 (RFC 4648)${base64Hint(base64)}`)
  if (base64.length % 4 !== 0) return notStrict
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0
  if ((base64.length / 4) * 3 - padding > LIMITS.imageMaxBytes) return tooLarge
  const bytes = Buffer.from(base64, 'base64')
  if (bytes.toString('base64') !== base64) return notStrict
  if (!MAGIC[mediaType](bytes)) return refuse(`bytes are not a ${mediaType} image`)
  return { ok: true, image: { media_type: mediaType, sha256: createHash('sha256').update(bytes).digest('hex'), bytes } }
}

/**
 * Why base64 that is not strict most often is not: a form body sent unencoded (`curl -d`) turns
 * every `+` into a space, and `base64` without `-w0` wraps its output at 76 columns.
 */
function base64Hint(base64: string): string {
  if (base64.includes(' ')) return "; it contains spaces: in a form body a '+' must be sent as %2B (curl --data-urlencode, or send JSON)"
  if (/[\r\n]/.test(base64)) return '; it contains line breaks: send the base64 on one line (base64 -w0)'
  return ''
}
