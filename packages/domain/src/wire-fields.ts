import { WIRE_STATUSES, type WireStatus } from './statuses.js'
import { decodeImageDataUrl, type DecodedImage } from './image-data-url.js'
import { isRealUtcTime, isTimestampShape } from './timestamp.js'

/** A wire field that breaks a rule; `validateDelivery` turns it into a bad_request. */
export class FieldError extends Error {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`)
  }
}

/** A body or payload object, and the prefix that names its fields in error details. */
export interface Fields {
  readonly object: object
  readonly prefix: string
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/
const LONE_SURROGATE = /[\ud800-\udfff]/u
const STATUSES: readonly string[] = WIRE_STATUSES

// Only own properties count, so a key on a prototype (`__proto__` tricks) is never read.
function has(fields: Fields, key: string): boolean {
  return Object.hasOwn(fields.object, key)
}

function readString(fields: Fields, key: string): string {
  if (!has(fields, key)) throw new FieldError(fields.prefix + key, 'is required')
  const value: unknown = (fields.object as Record<string, unknown>)[key]
  if (typeof value !== 'string') throw new FieldError(fields.prefix + key, 'must be a string')
  return value
}

function longerThan(text: string, max: number): boolean {
  if (text.length <= max) return false
  if (text.length > 2 * max) return true
  let codePoints = 0
  for (const _ of text) codePoints++
  return codePoints > max
}

/** A required string: not blank, at most `max` code points, no control character, well formed. */
export function readText(fields: Fields, key: string, max: number): string {
  const value = readString(fields, key)
  const fail = (reason: string) => new FieldError(fields.prefix + key, reason)
  if (value.trim() === '') throw fail('must not be empty')
  if (longerThan(value, max)) throw fail(`must be at most ${max} characters`)
  if (CONTROL.test(value)) throw fail('must not contain control characters')
  if (LONE_SURROGATE.test(value)) throw fail('must be well-formed Unicode (no lone surrogate)')
  return value
}

export function readTimestamp(fields: Fields, key: string): string {
  const value = readString(fields, key)
  const fail = (reason: string) => new FieldError(fields.prefix + key, reason)
  if (!isTimestampShape(value)) throw fail('must be YYYY-MM-DDTHH:MM:SSZ in UTC (up to 9 fraction digits; no offset)')
  if (!isRealUtcTime(value)) throw fail('is not a real calendar time')
  return value
}

export function readStatus(fields: Fields, key: string): WireStatus {
  const value = readString(fields, key)
  if (!STATUSES.includes(value)) throw new FieldError(fields.prefix + key, 'must be pending or in_progress')
  return value as WireStatus
}

export function readImage(fields: Fields, key: string): DecodedImage {
  const decoded = decodeImageDataUrl(readString(fields, key))
  if (!decoded.ok) throw new FieldError(fields.prefix + key, decoded.reason)
  return decoded.image
}

/** Absent, or blank (what an empty form field sends), is no image; anything else must be one. */
export function readOptionalImage(fields: Fields, key: string): DecodedImage | undefined {
  if (!has(fields, key)) return undefined
  if (readString(fields, key).trim() === '') return undefined
  return readImage(fields, key)
}

/** The nested object of a body (`event_payload`): required, and a JSON object. */
export function readObject(fields: Fields, key: string): Fields {
  if (!has(fields, key)) throw new FieldError(fields.prefix + key, 'is required')
  const value: unknown = (fields.object as Record<string, unknown>)[key]
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new FieldError(fields.prefix + key, 'must be an object')
  }
  return { object: value, prefix: `${fields.prefix}${key}.` }
}
