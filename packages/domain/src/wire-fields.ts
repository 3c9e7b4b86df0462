import Type from 'typebox'
import { ACCOUNT_PATTERN, ACCOUNT_REFUSAL } from './accounts.js'
import { IMAGE_MAX_BASE64_LENGTH, LIMITS } from './limits.js'
import { ERROR_MESSAGE, mustBeOneOf } from './refusal-words.js'
import { ORDER_STATUSES, WIRE_STATUSES } from './statuses.js'
import { textRules } from './text-rules.js'
import { TIMESTAMP_SHAPE } from './timestamp.js'
import { IMAGE_FORMAT, TIMESTAMP_FORMAT } from './wire-formats.js'

/*
 * The fields of the wire as TypeBox schemas that carry the words of their refusals: each rule is a
 * sub-schema with its words in an `x-error-message` annotation (`ERROR_MESSAGE`), which the wire
 * validator reads back from the failing error's schema path (wire-validator.ts). Every route's
 * schemas are built from these, so
 * a limit, a pattern or a list of statuses is spelled where its rule lives and nowhere else.
 * Patterns are ECMAScript with the `u` flag (as TypeBox evaluates them); lengths count code points.
 */

/** Free text: not blank, at most `maxLength` code points, no control character, no lone surrogate. */
export function text(description: string, maxLength: number = LIMITS.stringMaxLength) {
  return Type.String({ description, allOf: textRules(maxLength) })
}

/**
 * An order's id: text of at most 128 code points, and not `.` or `..`, which a URL's path would
 * drop or climb out of (`/v1/orders/./events` is `/v1/orders/events`), so that order could never
 * be read back by its URL (docs/contract.md#strings).
 */
export function orderId(description = 'Identifier of the order, chosen by the caller; unique within the account of the API key.') {
  return Type.String({
    description,
    allOf: [...textRules(LIMITS.orderIdMaxLength), { not: { enum: ['.', '..'] }, [ERROR_MESSAGE]: 'must not be . or .. (a URL path would drop it)' }],
  })
}

/** A UTC timestamp of the contract's shape that names a real calendar time (docs/contract.md#timestamps). */
export function timestamp(description: string) {
  return Type.String({
    description: `${description} UTC, YYYY-MM-DDTHH:MM:SSZ with up to 9 fraction digits; a real calendar time.`,
    allOf: [
      { pattern: TIMESTAMP_SHAPE, [ERROR_MESSAGE]: 'must be YYYY-MM-DDTHH:MM:SSZ in UTC (up to 9 fraction digits; no offset)' },
      { format: TIMESTAMP_FORMAT, [ERROR_MESSAGE]: 'is not a real calendar time' },
    ],
  })
}

/** One of a fixed set of strings; refused as `must be a or b` (two) or `must be one of a, b, c`. */
export function choice<const Values extends string[]>(values: readonly [...Values], description: string) {
  return Type.Enum(values, { type: 'string', description, [ERROR_MESSAGE]: mustBeOneOf(values) })
}

/** A status a delivery may set: pending or in_progress (docs/contract.md#statuses). */
export function wireStatus(description = 'Status of the order.') {
  return choice([...WIRE_STATUSES], description)
}

/** Any status an order can be in, the locked ones included. */
export function orderStatus(description: string) {
  return choice([...ORDER_STATUSES], description)
}

/** An account id: lower-case letters, digits and `_`, 1 to 64 of them. */
export function accountId(description: string) {
  return Type.String({ description, pattern: ACCOUNT_PATTERN.source, [ERROR_MESSAGE]: ACCOUNT_REFUSAL })
}

/** An integer of at least `minimum` and, when given, at most `maximum`. */
export function integer(description: string, minimum: number, maximum?: number) {
  return Type.Integer({ description, allOf: range(minimum, maximum) })
}

/** How many items a page holds: 1 to `maximum`, `fallback` when the request does not say. */
export function pageSize(description: string, maximum: number, fallback: number) {
  return Type.Integer({ description, default: fallback, allOf: range(1, maximum) })
}

function range(minimum: number, maximum?: number) {
  const at = [{ minimum, [ERROR_MESSAGE]: `must be at least ${minimum}` }]
  return maximum === undefined ? at : [...at, { maximum, [ERROR_MESSAGE]: `must be at most ${maximum}` }]
}

/** `abc` → `[aA][bB][cC]`: JSON Schema patterns have no case-insensitive flag. */
function caseless(text: string): string {
  return text.replace(/[a-z]/g, (c) => `[${c}${c.toUpperCase()}]`)
}
// Only the prefix: the base64 itself is judged by the image format. A pattern over the whole
// base64 (`(?:[A-Za-z0-9+/]{4})*…$`) overflows V8's regular-expression stack on a 5 MiB image,
// in our validator and in any client a generator builds from the OpenAPI document.
const IMAGE_PATTERN = `^${caseless('data:image/')}(?:${caseless('jpeg')}|${caseless('png')}|${caseless('webp')});${caseless('base64')},`
const IMAGE_MAX_LENGTH = 'data:image/jpeg;base64,'.length + IMAGE_MAX_BASE64_LENGTH

/**
 * An image as a data URL (docs/contract.md#images). Its schema has no words of its own: whichever
 * keyword refuses it, the image decoder behind its format names the reason.
 */
export function image(description: string) {
  return Type.String({
    maxLength: IMAGE_MAX_LENGTH,
    pattern: IMAGE_PATTERN,
    format: IMAGE_FORMAT,
    description: `${description} data:<image/jpeg|image/png|image/webp>;base64,<data>: strict base64 (RFC 4648, no line breaks), at most ${LIMITS.imageMaxBytes} bytes decoded, bytes of that image type.`,
  })
}
