/**
 * Waybill's size limits (docs/contract.md#limits; the specification leaves them open). Lengths count
 * Unicode code points, as JSON Schema's maxLength does.
 */
export const LIMITS = {
  orderIdMaxLength: 128,
  stringMaxLength: 1024,
  /** Decoded bytes of one image (pod or signature). */
  imageMaxBytes: 5 * 1024 * 1024,
  /** Whole request body; past it the ingress answers payload_too_large. */
  bodyMaxBytes: 16 * 1024 * 1024,
  /** Digits allowed after the seconds' decimal point (nanoseconds). */
  fractionMaxDigits: 9,
} as const

/** The longest base64 text that can decode to `imageMaxBytes`: checked before decoding. */
export const IMAGE_MAX_BASE64_LENGTH = Math.ceil(LIMITS.imageMaxBytes / 3) * 4
