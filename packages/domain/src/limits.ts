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
  /** Orders in one page of the read API's list (`limit`), and how many when it is not given. */
  ordersPageMax: 500,
  ordersPageDefault: 50,
  /** Signed tree heads in one page of the audit log's list (`limit`), and how many when it is not given. */
  headsPageMax: 1000,
  /**
   * Events one order may hold: a history, its proofs and its images are read whole on the thread
   * every request shares, so no order may grow without bound (docs/contract.md#limits). Past one
   * fewer, updates are refused, so an order can always still be completed or canceled.
   */
  orderEventsMax: 1000,
  /**
   * A page of an order's history or proofs: well under 256 KiB at the default, and small enough
   * at the most that building and writing one holds other requests only for milliseconds.
   */
  historyPageMax: 250,
  historyPageDefault: 100,
  headsPageDefault: 100,
  /*
   * The structure of a body, bounded before it is parsed (docs/contract.md#body-structure): the
   * work a parser does grows with the number of values, the nesting and the markup, not with the
   * bytes of long strings, and a delivery event is small in structure (an envelope with one
   * payload of about ten fields) even when its images make it large in bytes. Past any of these
   * the answer is bad_request, naming the limit.
   */
  /** Nesting of a JSON body: objects and arrays inside one another. An event needs 2. */
  bodyMaxDepth: 8,
  /** JSON object members and array elements at every depth; form fields; multipart parts. */
  bodyMaxFields: 1024,
  /**
   * Bytes of a body outside its text: in JSON everything outside string literals (white space,
   * punctuation, numbers, literals); in a form the field names and separators; in multipart the
   * boundaries and part headers.
   */
  bodyMaxMarkupBytes: 256 * 1024,
  /** Escape sequences (`\"`, `\\`, `\u00e9`, …) in the strings of a JSON body. */
  bodyMaxEscapes: 64 * 1024,
} as const

/** The longest base64 text that can decode to `imageMaxBytes`: checked before decoding. */
export const IMAGE_MAX_BASE64_LENGTH = Math.ceil(LIMITS.imageMaxBytes / 3) * 4
