import { LIMITS, WaybillError } from '@waybill/domain'

// The bytes of JSON's grammar (RFC 8259 §2); every other byte outside a string is part of a number
// or a literal, whose spelling JSON.parse checks.
const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const COLON = 0x3a
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d
const SPACE = 0x20
const TAB = 0x09
const LF = 0x0a
const CR = 0x0d

// What may come next, as the scan walks the tokens.
const VALUE = 0 // a value: at the start, after ':' and after ',' in an array
const VALUE_OR_CLOSE = 1 // after '['
const KEY = 2 // after ',' in an object
const KEY_OR_CLOSE = 3 // after '{'
const AFTER_KEY = 4 // ':'
const AFTER_VALUE = 5 // ',' or a closing bracket (or, at the top, nothing)
const IN_SCALAR = 6 // inside a number or a literal: more of it, or what may follow a value

function overLimit(what: string, limit: number): WaybillError {
  return new WaybillError('bad_request', `The JSON body has more than ${limit} ${what}; at most ${limit} are accepted`)
}

function notJson(): WaybillError {
  return new WaybillError('bad_request', 'The body is not valid JSON')
}

/**
 * Walks a JSON body's tokens without building anything and refuses it, before JSON.parse does any
 * work, when its structure is past the limits (docs/contract.md#body-structure): nesting deeper than
 * `bodyMaxDepth`, more than `bodyMaxFields` object members and array elements, more than
 * `bodyMaxMarkupBytes` bytes outside strings, or more than `bodyMaxEscapes` escape sequences.
 * Within them JSON.parse costs about what copying the strings costs; past them it could cost
 * seconds (a 16 MiB body of nested arrays took 4 s) on the thread every request shares.
 *
 * Strings are skipped with Buffer.indexOf (memchr), so a legitimate body of two large images
 * costs well under a millisecond; only the bytes outside strings (bounded) and the escapes
 * (bounded) are visited one at a time. A token out of place is refused as invalid JSON at once,
 * which is what JSON.parse would answer, and it also bounds the number of strings: each one is a
 * key or a value, and both are counted. The scan never refuses valid JSON within the limits.
 *
 * With `complete` false, `body` is the start of a body still arriving: a string may run past its
 * end. Every limit only grows with more bytes, so a start past one is refused already.
 */
export function checkJsonStructure(body: Buffer, complete = true): void {
  const end = body.length
  // One entry per open container, true for an object; never longer than bodyMaxDepth.
  const containers: boolean[] = []
  let state = VALUE
  let fields = 0
  let markup = 0
  let escapes = 0
  // The first backslash at or after the current position in a string, or `end` when none is left;
  // kept across strings, so no byte is searched twice.
  let nextBackslash = -1

  const countField = (): void => {
    fields += 1
    if (fields > LIMITS.bodyMaxFields) throw overLimit('object members and array elements', LIMITS.bodyMaxFields)
  }
  const inArray = (): boolean => containers.length > 0 && containers[containers.length - 1] === false

  for (let i = 0; i < end; i++) {
    const byte = body[i] as number
    if (byte === QUOTE) {
      if (state === KEY || state === KEY_OR_CLOSE) {
        countField()
        state = AFTER_KEY
      } else if (state === VALUE || state === VALUE_OR_CLOSE) {
        if (inArray()) countField()
        state = AFTER_VALUE
      } else {
        throw notJson()
      }
      // The string ends at the first quote that is not escaped; whatever byte follows a
      // backslash belongs to the escape (in `\u00e9` the hex digits are neither quote nor backslash).
      let from = i + 1
      let quote = body.indexOf(QUOTE, from)
      for (;;) {
        if (quote === -1) {
          if (complete) throw notJson()
          return
        }
        if (nextBackslash < from) {
          nextBackslash = body.indexOf(BACKSLASH, from)
          if (nextBackslash === -1) nextBackslash = end
        }
        if (nextBackslash > quote) break
        escapes += 1
        if (escapes > LIMITS.bodyMaxEscapes) throw overLimit('escape sequences in its strings', LIMITS.bodyMaxEscapes)
        from = nextBackslash + 2
        if (quote < from) quote = body.indexOf(QUOTE, from)
      }
      i = quote
      continue
    }

    markup += 1
    if (markup > LIMITS.bodyMaxMarkupBytes) {
      throw overLimit('bytes outside its strings (white space, punctuation, numbers)', LIMITS.bodyMaxMarkupBytes)
    }
    switch (byte) {
      case SPACE: case TAB: case LF: case CR:
        if (state === IN_SCALAR) state = AFTER_VALUE
        break
      case OPEN_ARRAY: case OPEN_OBJECT:
        if (state !== VALUE && state !== VALUE_OR_CLOSE) throw notJson()
        if (inArray()) countField()
        containers.push(byte === OPEN_OBJECT)
        if (containers.length > LIMITS.bodyMaxDepth) {
          throw new WaybillError('bad_request',
            `The JSON body nests objects and arrays more than ${LIMITS.bodyMaxDepth} deep; at most ${LIMITS.bodyMaxDepth} levels are accepted`)
        }
        state = byte === OPEN_OBJECT ? KEY_OR_CLOSE : VALUE_OR_CLOSE
        break
      case CLOSE_ARRAY:
        if (!inArray() || (state !== VALUE_OR_CLOSE && state !== AFTER_VALUE && state !== IN_SCALAR)) throw notJson()
        containers.pop()
        state = AFTER_VALUE
        break
      case CLOSE_OBJECT:
        if (containers.length === 0 || inArray() || (state !== KEY_OR_CLOSE && state !== AFTER_VALUE && state !== IN_SCALAR)) throw notJson()
        containers.pop()
        state = AFTER_VALUE
        break
      case COMMA:
        if (containers.length === 0 || (state !== AFTER_VALUE && state !== IN_SCALAR)) throw notJson()
        state = inArray() ? VALUE : KEY
        break
      case COLON:
        if (state !== AFTER_KEY) throw notJson()
        state = VALUE
        break
      default:
        if (state === VALUE || state === VALUE_OR_CLOSE) {
          if (inArray()) countField()
          state = IN_SCALAR
        } else if (state !== IN_SCALAR) {
          throw notJson()
        }
    }
  }
}
