import { MIMEType } from 'node:util'
import { LIMITS, WaybillError } from '@waybill/domain'

const CR = 0x0d
const LF = 0x0a
const COLON = 0x3a
const QUOTE = 0x22
const SPACE = 0x20
const TAB = 0x09
const DASH = 0x2d
const STAR = 0x2a
const EQUALS = 0x3d
const HEADER_NAME = /^[!#$%&'*+\-.^_|~A-Za-z0-9]+$/
const FORM_DATA_NAME = Buffer.from('form-data; name="')
const FILENAME = Buffer.from('; filename')
const HEADERS_END = Buffer.from('\r\n\r\n')

function unparseable(): WaybillError {
  return new WaybillError('bad_request', 'The multipart body cannot be parsed')
}

/**
 * The text fields of a multipart/form-data body, read as the platform's `Response.formData()`
 * (Node's built-in undici) reads them, with the work bounded (docs/contract.md#body-structure): at most
 * `bodyMaxFields` parts and `bodyMaxMarkupBytes` of boundaries and part headers, and every part's
 * content found with Buffer.indexOf and decoded by Buffer.toString, natively. `formData()` could
 * not be bounded from outside: it spent 24–60 ms on one 16 MiB part, and 0.6–1 s on a part with
 * 16 MiB of headers (it walks headers a byte at a time in JavaScript).
 *
 * The steps are those of the algorithm undici implements (the WHATWG draft "multipart/form-data
 * parser"): CRLFs before the first boundary and after the last are allowed; a part needs a
 * `Content-Disposition: form-data; name="…"` header; `%0A`, `%0D` and `%22` in names are decoded;
 * a `Content-Transfer-Encoding: base64` part is decoded; text is UTF-8 without its BOM. Two
 * differences, on bodies that a conforming sender does not produce: a part ends at CRLF
 * `--boundary`, the delimiter of RFC 2046, where undici stops at the first `boundary` text and
 * fails when that is not the delimiter (a sender must keep its boundary out of its contents); and
 * a header line ends with CRLF, where undici also takes CR and any byte. A file part (one with a
 * filename) is refused: images travel as Data URLs in text fields (docs/contract.md#body-content-types).
 */
export function multipartFields(body: Buffer, contentType: string): Array<[string, string]> {
  const fields: Array<[string, string]> = []
  const files: string[] = []
  walkParts(body, contentType, true, (headers, content) => {
    if (headers.filename !== null) {
      files.push(headers.name)
      return
    }
    const bytes = headers.encoding === 'base64' ? Buffer.from(content.toString('utf8'), 'base64') : content
    fields.push([headers.name, utf8WithoutBom(bytes, 2)])
  })
  const [firstFile] = files
  if (firstFile !== undefined) {
    throw new WaybillError('bad_request', `Multipart part "${firstFile}" is a file; send images as Data URLs in text fields`)
  }
  return fields
}

/**
 * The part and markup limits of `multipartFields`, and its refusal of what cannot be parsed, on
 * the start of a body still arriving: the parts seen so far are counted, their contents not decoded.
 */
export function checkMultipartStructure(start: Buffer, contentType: string): void {
  walkParts(start, contentType, false, () => {})
}

/**
 * Calls `onPart` for each part in order. With `complete` false, `body` is the start of a body,
 * and the walk ends quietly where the bytes do; every count only grows with more bytes.
 */
function walkParts(body: Buffer, contentType: string, complete: boolean, onPart: (headers: PartHeaders, content: Buffer) => void): void {
  const boundary = boundaryOf(contentType)
  if (boundary === null) throw unparseable()
  const dashBoundary = Buffer.from(`--${boundary}`, 'utf8')
  const delimiter = Buffer.from(`\r\n--${boundary}`, 'utf8')
  const markup = new MarkupBudget()

  let position = 0
  while (body[position] === CR && body[position + 1] === LF) {
    markup.spend(2)
    position += 2
  }
  let end = body.length
  while (complete && end > position && body[end - 1] === LF && body[end - 2] === CR) {
    markup.spend(2)
    end -= 2
  }
  const input = body.subarray(0, end)
  // A whole body that ends early cannot be parsed; the start of one says nothing more yet.
  const outOfBytes = (): void => {
    if (complete) throw unparseable()
  }

  let parts = 0
  for (;;) {
    if (!startsWith(input, dashBoundary, position)) {
      if (position + dashBoundary.length <= input.length) throw unparseable()
      outOfBytes()
      return
    }
    position += dashBoundary.length
    markup.spend(dashBoundary.length + 2)
    if (input[position] === DASH && input[position + 1] === DASH) {
      if (!complete || position === input.length - 2) return
      throw unparseable()
    }
    if (position + 2 > input.length) {
      outOfBytes()
      return
    }
    if (input[position] !== CR || input[position + 1] !== LF) throw unparseable()
    position += 2

    parts += 1
    if (parts > LIMITS.bodyMaxFields) {
      throw new WaybillError('bad_request', `The multipart body has more than ${LIMITS.bodyMaxFields} parts; at most ${LIMITS.bodyMaxFields} are accepted`)
    }
    // The headers are walked a byte at a time, so they are paid for before they are read.
    const headersEnd = input.indexOf(HEADERS_END, position - 2)
    if (headersEnd === -1) {
      markup.spend(input.length - position)
      outOfBytes()
      return
    }
    markup.spend(headersEnd + 4 - position)
    const headers = partHeaders(input.subarray(0, headersEnd + 4), position)
    position = headers.end + 2

    const close = input.indexOf(delimiter, position)
    if (close === -1) {
      outOfBytes()
      return
    }
    onPart(headers, input.subarray(position, close))
    position = close + 2
  }
}

class MarkupBudget {
  #spent = 0

  spend(bytes: number): void {
    this.#spent += bytes
    if (this.#spent > LIMITS.bodyMaxMarkupBytes) {
      throw new WaybillError('bad_request',
        `The multipart body has more than ${LIMITS.bodyMaxMarkupBytes} bytes of boundaries and part headers; at most ${LIMITS.bodyMaxMarkupBytes} are accepted`)
    }
  }
}

/** The boundary parameter of the Content-Type, read as a WHATWG MIME type (as fetch reads it). */
function boundaryOf(contentType: string): string | null {
  try {
    return new MIMEType(contentType).params.get('boundary')
  } catch {
    return null
  }
}

interface PartHeaders {
  readonly name: string
  readonly filename: string | null
  readonly encoding: string | null
  /** Where the empty line that closes the headers starts. */
  readonly end: number
}

/** The headers of one part, from `start`; `input` ends just after the empty line that closes them. */
function partHeaders(input: Buffer, start: number): PartHeaders {
  let position = start
  let name: string | null = null
  let filename: string | null = null
  let encoding: string | null = null
  for (;;) {
    if (input[position] === CR && input[position + 1] === LF) {
      if (name === null) throw unparseable()
      return { name, filename, encoding, end: position }
    }
    const nameEnd = collect(input, position, (byte) => byte !== LF && byte !== CR && byte !== COLON)
    const headerName = trimSpaceAndTab(input.toString('latin1', position, nameEnd))
    if (!HEADER_NAME.test(headerName) || input[nameEnd] !== COLON) throw unparseable()
    position = collect(input, nameEnd + 1, (byte) => byte === SPACE || byte === TAB)
    const lineEnd = collect(input, position, (byte) => byte !== LF && byte !== CR)
    switch (headerName.toLowerCase()) {
      case 'content-disposition': {
        filename = null
        if (!startsWith(input, FORM_DATA_NAME, position)) throw unparseable()
        const parsedName = quotedName(input, position + FORM_DATA_NAME.length)
        name = parsedName.value
        position = parsedName.end
        if (startsWith(input, FILENAME, position)) {
          let check = position + FILENAME.length
          if (input[check] === STAR) check += 1
          if (input[check] !== EQUALS || input[check + 1] !== QUOTE) throw unparseable()
          const parsedFilename = quotedName(input, check + 2)
          filename = parsedFilename.value
          position = parsedFilename.end
        }
        // Nothing may follow the name and filename on the line, as in undici.
        break
      }
      case 'content-transfer-encoding':
        encoding = trimSpaceAndTab(input.toString('latin1', position, lineEnd))
        position = lineEnd
        break
      default:
        position = lineEnd
    }
    if (input[position] !== CR || input[position + 1] !== LF) throw unparseable()
    position += 2
  }
}

/** A `"…"` name or filename from `start` (just after the opening quote), to the closing quote. */
function quotedName(input: Buffer, start: number): { value: string; end: number } {
  const close = collect(input, start, (byte) => byte !== LF && byte !== CR && byte !== QUOTE)
  if (input[close] !== QUOTE) throw unparseable()
  const value = utf8WithoutBom(input.subarray(start, close), 1)
    .replace(/%0A/gi, '\n')
    .replace(/%0D/gi, '\r')
    .replace(/%22/g, '"')
  return { value, end: close + 1 }
}

/**
 * UTF-8 text without a leading byte-order mark. undici's text parts drop up to two (its own
 * check, then TextDecoder's); its names drop one (TextDecoder's alone).
 */
function utf8WithoutBom(bytes: Buffer, marks: number): string {
  let start = 0
  for (let i = 0; i < marks && bytes[start] === 0xef && bytes[start + 1] === 0xbb && bytes[start + 2] === 0xbf; i++) start += 3
  return bytes.toString('utf8', start)
}

function collect(input: Buffer, from: number, accept: (byte: number) => boolean): number {
  let position = from
  while (position < input.length && accept(input[position] as number)) position += 1
  return position
}

function trimSpaceAndTab(text: string): string {
  return text.replace(/^[ \t]+|[ \t]+$/g, '')
}

function startsWith(input: Buffer, prefix: Buffer, position: number): boolean {
  return position + prefix.length <= input.length && input.compare(prefix, 0, prefix.length, position, position + prefix.length) === 0
}
