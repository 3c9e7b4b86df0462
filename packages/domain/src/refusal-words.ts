/*
 * The words every rule shares, for what JSON Schema itself names rather than a rule of ours: a
 * field that is missing, a value of the wrong JSON type, a value outside a fixed set. The wire
 * validator says them for any schema, and the rules the root entry checks without a schema
 * library (key labels, the event name) say them in the same words.
 */

/**
 * The annotation that carries the words of a sub-schema's refusal. An OpenAPI extension (`x-`), so
 * the document that shows a rule shows its words and stays valid OpenAPI; the wire validator reads
 * it back from the schema path of the failing error.
 */
export const ERROR_MESSAGE = 'x-error-message'

export const IS_REQUIRED = 'is required'

/** `must be a string`, `must be an integer`; a list of types is joined with `or` (`a string or null`). */
export function mustBeOfType(type: string | readonly string[]): string {
  const types = typeof type === 'string' ? [type] : type
  return `must be ${types.map(withArticle).join(' or ')}`
}

function withArticle(type: string): string {
  if (type === 'null') return type
  return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`
}

/** `must be json or csv` for two values, `must be one of a, b, c` for more. */
export function mustBeOneOf(values: readonly string[]): string {
  return values.length === 2 ? `must be ${values.join(' or ')}` : `must be one of ${values.join(', ')}`
}
