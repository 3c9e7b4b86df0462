import { isUtf8 } from 'node:buffer'
import { LIMITS, WaybillError } from '@waybill/domain'

const AMPERSAND = 0x26
const EQUALS = 0x3d
const PLUS = 0x2b
const PERCENT = 0x25
const QUESTION_MARK = 0x3f
const SPACE = 0x20

/** Bytes decoded between two returns to the event loop: about 1.5 ms of work. */
const SLICE_BYTES = 1024 * 1024

function hexValue(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30
  const lower = byte | 0x20
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x57 : -1
}

/**
 * The fields of an application/x-www-form-urlencoded body, exactly as `new URLSearchParams(text)`
 * reads them (the WHATWG URL Standard's urlencoded parser; a leading `?` is dropped), but with
 * bounded work on the thread every request shares (docs/contract.md#body-structure):
 * - at most `bodyMaxFields` fields, counted as the pieces between `&` (empty ones included), and
 *   at most `bodyMaxMarkupBytes` of names and separators, both refused before anything is decoded;
 * - values are percent-decoded a slice at a time, calling `pause` between slices, because a legit
 *   form carrying two images is 14 MB of `%2B`-ridden base64, and URLSearchParams took
 *   60–200 ms for it in one go.
 */
export async function urlencodedFields(body: Buffer, pause: () => Promise<void>): Promise<Array<[string, string]>> {
  // URLSearchParams reads text: invalid UTF-8 is replaced (U+FFFD) before any percent-decoding,
  // so a raw byte never combines with a decoded one. Valid UTF-8, the usual case, is left alone.
  const source = isUtf8(body) ? body : Buffer.from(body.toString('utf8'), 'utf8')
  const pieces = splitPieces(source)
  let budget = SLICE_BYTES
  const decode = async (bytes: Buffer): Promise<string> => {
    if (bytes.indexOf(PERCENT) === -1 && bytes.indexOf(PLUS) === -1) return bytes.toString('utf8')
    const out = Buffer.allocUnsafe(bytes.length)
    const position = { read: 0, written: 0 }
    while (position.read < bytes.length) {
      const stop = Math.min(bytes.length, position.read + budget)
      budget -= stop - position.read
      percentDecode(bytes, stop, out, position)
      if (budget <= 0) {
        budget = SLICE_BYTES
        await pause()
      }
    }
    return out.toString('utf8', 0, position.written)
  }
  const fields: Array<[string, string]> = []
  for (const { start, equals, end } of pieces) {
    fields.push([await decode(source.subarray(start, equals)), await decode(source.subarray(Math.min(equals + 1, end), end))])
  }
  return fields
}

/**
 * The field and markup limits of `urlencodedFields`, on the start of a form still arriving. The
 * raw bytes are counted: replacing invalid UTF-8 only lengthens names, so a start past a limit
 * is past it whole.
 */
export function checkFormStructure(start: Buffer): void {
  splitPieces(start)
}

interface Piece {
  readonly start: number
  /** Where the name ends: the first `=`, or the end of the piece when it has none. */
  readonly equals: number
  readonly end: number
}

function splitPieces(source: Buffer): Piece[] {
  const pieces: Piece[] = []
  let markup = 0
  let start = source[0] === QUESTION_MARK ? 1 : 0
  let count = 0
  while (start <= source.length) {
    let end = source.indexOf(AMPERSAND, start)
    if (end === -1) end = source.length
    count += 1
    if (count > LIMITS.bodyMaxFields) {
      throw new WaybillError('bad_request', `The form has more than ${LIMITS.bodyMaxFields} fields; at most ${LIMITS.bodyMaxFields} are accepted`)
    }
    if (end > start) {
      // Searched in the piece alone, so that no byte is searched twice over all pieces.
      const found = source.subarray(start, end).indexOf(EQUALS)
      const equals = found === -1 ? end : start + found
      markup += equals - start + 2
      pieces.push({ start, equals, end })
    }
    if (markup > LIMITS.bodyMaxMarkupBytes) {
      throw new WaybillError('bad_request',
        `The form has more than ${LIMITS.bodyMaxMarkupBytes} bytes of field names and separators; at most ${LIMITS.bodyMaxMarkupBytes} are accepted`)
    }
    start = end + 1
  }
  return pieces
}

/**
 * Decodes `bytes` from `position.read` up to `stop` into `out` at `position.written`: `+` is a
 * space, `%` and two hex digits one byte, any other `%` itself. A `%XX` that starts before `stop`
 * is decoded whole, so the next slice may start just after `stop`.
 */
function percentDecode(bytes: Buffer, stop: number, out: Buffer, position: { read: number; written: number }): void {
  let i = position.read
  let o = position.written
  for (; i < stop; i++) {
    let byte = bytes[i] as number
    if (byte === PLUS) {
      byte = SPACE
    } else if (byte === PERCENT && i + 2 < bytes.length) {
      const high = hexValue(bytes[i + 1] as number)
      const low = hexValue(bytes[i + 2] as number)
      if (high >= 0 && low >= 0) {
        byte = (high << 4) | low
        i += 2
      }
    }
    out[o++] = byte
  }
  position.read = i
  position.written = o
}
