import Format from 'typebox/format'
import { decodeImage } from './decoded-images.js'
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

Format.Set(TIMESTAMP_FORMAT, isRealUtcTime)
Format.Set(IMAGE_FORMAT, (text) => decodeImage(text).ok)

/**
 * Why a format refuses `value`, for a format that can say so itself, else undefined. An image is
 * refused for one of several reasons, and its decoder, which judges it, is the one that names it:
 * the schema of an image carries no words of its own.
 */
export function formatRefusal(format: unknown, value: unknown): string | undefined {
  if (format !== IMAGE_FORMAT || typeof value !== 'string') return undefined
  const decoded = decodeImage(value)
  return decoded.ok ? undefined : decoded.reason
}
