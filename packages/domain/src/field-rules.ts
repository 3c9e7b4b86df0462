import { decodeImage } from './decoded-images.js'
import { isWireStatus, WIRE_STATUSES } from './statuses.js'
import { isRealUtcTime, isTimestampShape } from './timestamp.js'

/**
 * Why a value breaks its field's schema, in words a courier can act on, or null when it does
 * not. The schema decides whether a value is valid; these only explain a refusal the schema
 * made (a property test holds the two to each other).
 */
export type FieldRule = (value: unknown) => string | null

// eslint-disable-next-line no-control-regex -- it exists to refuse control characters (docs/contract.md#strings)
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/
const LONE_SURROGATE = /[\ud800-\udfff]/u

/**
 * Whether `text` has more than `max` characters, counted as the contract counts them: in code
 * points (docs/contract.md#conventions). Counts without building an array, and only when the
 * UTF-16 length leaves it open.
 */
export function codePointsOver(text: string, max: number): boolean {
  if (text.length <= max) return false
  if (text.length > 2 * max) return true
  let codePoints = 0
  for (const _ of text) codePoints++
  return codePoints > max
}

/** A required string: not blank, at most `max` code points, no control character, well formed. */
export function textRule(max: number): FieldRule {
  return (value) => {
    if (typeof value !== 'string') return 'must be a string'
    if (value.trim() === '') return 'must not be empty'
    if (codePointsOver(value, max)) return `must be at most ${max} characters`
    if (CONTROL.test(value)) return 'must not contain control characters'
    return LONE_SURROGATE.test(value) ? 'must be well-formed Unicode (no lone surrogate)' : null
  }
}

export const timestampRule: FieldRule = (value) => {
  if (typeof value !== 'string') return 'must be a string'
  if (!isTimestampShape(value)) return 'must be YYYY-MM-DDTHH:MM:SSZ in UTC (up to 9 fraction digits; no offset)'
  return isRealUtcTime(value) ? null : 'is not a real calendar time'
}

export const statusRule: FieldRule = (value) => {
  if (typeof value !== 'string') return 'must be a string'
  return isWireStatus(value) ? null : `must be ${WIRE_STATUSES.join(' or ')}`
}

export const imageRule: FieldRule = (value) => {
  if (typeof value !== 'string') return 'must be a string'
  const decoded = decodeImage(value)
  return decoded.ok ? null : decoded.reason
}

export const objectRule: FieldRule = (value) =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? null : 'must be an object'
