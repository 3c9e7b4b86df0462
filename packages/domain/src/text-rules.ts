import { LIMITS } from './limits.js'
import { ERROR_MESSAGE, mustBeOfType } from './refusal-words.js'

/**
 * One rule of a string field as a JSON Schema keyword, with the words of its refusal. Plain data:
 * the wire entry puts these very objects in its schemas (`allOf`, one per rule) and TypeBox checks
 * them; `textRefusal` reads them where no schema library is loaded (key labels).
 */
export interface StringRule {
  /** An ECMAScript pattern the text must match, evaluated with the `u` flag as JSON Schema and TypeBox do. */
  readonly pattern?: string
  /** A pattern the text must not match anywhere. */
  readonly not?: { readonly pattern: string }
  /** In code points, as JSON Schema counts (docs/contract.md#conventions). */
  readonly maxLength?: number
  readonly [ERROR_MESSAGE]: string
}

// C0, DEL and C1 (docs/contract.md#strings).
const CONTROL_CHARACTERS = '\\u0000-\\u001F\\u007F-\\u009F'

/**
 * The rules of every free-text field (docs/contract.md#validation-rules), in the order a refusal
 * names them: not blank (`\S` is what `String.prototype.trim` keeps), at most `maxLength` code
 * points, no control character, no lone surrogate (which cannot be stored as UTF-8).
 */
export function textRules(maxLength: number = LIMITS.stringMaxLength): StringRule[] {
  return [
    { pattern: '\\S', [ERROR_MESSAGE]: 'must not be empty' },
    { maxLength, [ERROR_MESSAGE]: `must be at most ${maxLength} characters` },
    // Searching for the character refused is cheaper than matching the whole text against its
    // complement (`^[^…]*$`), and every accepted delivery runs these.
    { not: { pattern: `[${CONTROL_CHARACTERS}]` }, [ERROR_MESSAGE]: 'must not contain control characters' },
    { not: { pattern: '[\\uD800-\\uDFFF]' }, [ERROR_MESSAGE]: 'must be well-formed Unicode (no lone surrogate)' },
  ]
}

/** Why `value` breaks the text rules with this length, in their words, or null when it keeps them. */
export function textRefusal(value: unknown, maxLength: number): string | null {
  if (typeof value !== 'string') return mustBeOfType('string')
  return textRules(maxLength).find((rule) => !holds(rule, value))?.[ERROR_MESSAGE] ?? null
}

function holds(rule: StringRule, text: string): boolean {
  if (rule.maxLength !== undefined && codePointsOver(text, rule.maxLength)) return false
  if (rule.not !== undefined && matches(rule.not.pattern, text)) return false
  return rule.pattern === undefined || matches(rule.pattern, text)
}

function matches(pattern: string, text: string): boolean {
  return new RegExp(pattern, 'u').test(text)
}

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
