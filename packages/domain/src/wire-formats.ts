import Format from 'typebox/format'
import { decodeImageDataUrl, type ImageDecoding } from './image-data-url.js'
import { isRealUtcTime } from './timestamp.js'

/**
 * The two checks of the wire format that a JSON Schema pattern cannot say, as named formats the
 * delivery schema uses, so that the one compiled schema both validates and documents:
 * - `utc-timestamp`: a real UTC calendar time (no February 30, no hour 24);
 * - `image-data-url`: strict base64 with zero pad bits, at most the image limit once decoded,
 *   bytes that start with their media type's signature.
 */
export const TIMESTAMP_FORMAT = 'utc-timestamp'
export const IMAGE_FORMAT = 'image-data-url'

/**
 * Decoding an image is the expensive part of validation (up to 5 MiB of base64), and the
 * validator needs the decoded bytes right after the format check has decoded them once. The
 * last few decodings are kept, keyed by the very string, until `forgetDecodedImages` drops them
 * at the end of a validation; validation is synchronous, so no other request sees them.
 */
const recent = new Map<string, ImageDecoding>()
const RECENT_MAX = 4

export function decodeImage(text: string): ImageDecoding {
  const known = recent.get(text)
  if (known !== undefined) return known
  const decoded = decodeImageDataUrl(text)
  if (recent.size >= RECENT_MAX) recent.clear()
  recent.set(text, decoded)
  return decoded
}

export function forgetDecodedImages(): void {
  recent.clear()
}

Format.Set(TIMESTAMP_FORMAT, isRealUtcTime)
Format.Set(IMAGE_FORMAT, (text) => decodeImage(text).ok)
