import { decodeImageDataUrl, type ImageDecoding } from './image-data-url.js'

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
