import type { Static, TSchema } from 'typebox'
import { Compile } from 'typebox/compile'
import type { TValidationError } from 'typebox/error'
import { Value } from 'typebox/value'
import { WaybillError, type FieldError } from './errors.js'
import { encodeSegment, isObject, objectAt, pointerSegments, valueAt } from './json-pointer.js'
import { ERROR_MESSAGE, IS_REQUIRED, mustBeOfType } from './refusal-words.js'
import { formatRefusal } from './wire-formats.js'

/** What a wire validator answers: the value (converted, for the parts of a request that are text), or the refusal. */
export type WireValidation<T> = { readonly value: T; readonly error?: undefined } | { readonly error: WaybillError }

export type WireValidator<T> = (value: unknown) => WireValidation<T>

export interface WireValidatorOptions {
  /**
   * For the parts of a request that arrive as text (query string, path parameters, headers):
   * fill in the schema's defaults, then convert strings to the declared types (`"50"` to 50),
   * before checking. A body is checked as sent.
   */
  readonly convert: boolean
}

/** When no sub-schema has words for a refusal (a `const`, a schema built without the wire's fields). */
const NOT_VALID = 'is not valid'

/**
 * One validator for any wire schema, compiled once: a value the schema accepts comes back as
 * `{ value }`; any other as `{ error }`, a `bad_request` whose detail names the first wrong field
 * in schema order (`limit: must be at most 500`, `event_payload.order_id: is required`) and whose
 * `errors` list every wrong field, each with its JSON pointer. The words of a refusal are those
 * of the sub-schema that refused (its `x-error-message`, see wire-fields.ts), looked up only once a
 * value has failed, so accepting a value costs the compiled check alone.
 */
export function compileWireValidator<Schema extends TSchema>(schema: Schema, options: WireValidatorOptions): WireValidator<Static<Schema>> {
  const validator = Compile(schema)
  const order = fieldOrder(schema)
  return (input) => {
    const value = options.convert ? converted(schema, input) : input
    if (validator.Check(value)) return { value }
    const problems = fieldErrors(schema, order, value, validator.Errors(value))
    const detail = problems.slice(0, 1).map(({ field, detail }) => (field === '' ? detail : `${field}: ${detail}`)).join('')
    return { error: new WaybillError('bad_request', detail, { errors: problems }) }
  }
}

/**
 * A text part of a request as the schema's types: defaults filled in (`Value.Default`, as Fastify's
 * Ajv did), then strings converted (`Value.Convert`, as `@fastify/type-provider-typebox`'s compiler
 * does). A member converted to a number must read back as the very text sent: `Value.Convert`
 * truncates `1.5` to 1 and reads `0x10` as 16, which are refused (`must be an integer`), not
 * guessed at.
 */
function converted(schema: TSchema, input: unknown): unknown {
  const sent: unknown = isObject(input) ? { ...input } : input
  const value: unknown = Value.Convert(schema, Value.Default(schema, input))
  if (!isObject(value) || !isObject(sent)) return value
  for (const [name, member] of Object.entries(value)) {
    const text = sent[name]
    if (typeof member === 'number' && typeof text === 'string' && String(member) !== text) value[name] = text
  }
  return value
}

/** Every field the errors name, once (the first error on a field explains it), in schema order. */
function fieldErrors(schema: TSchema, order: ReadonlyMap<string, number>, value: unknown, errors: readonly TValidationError[]): FieldError[] {
  const found = new Map<string, FieldError>()
  const add = (pointer: string, why: () => string): void => {
    if (!found.has(pointer)) found.set(pointer, { pointer, field: pointerSegments(pointer).join('.'), detail: why() })
  }
  for (const error of errors) {
    if (error.keyword === 'required') {
      for (const name of error.params.requiredProperties) add(`${error.instancePath}/${encodeSegment(name)}`, () => IS_REQUIRED)
    } else if (error.keyword !== 'additionalProperties') {
      // (An extra member has an error of its own at its own pointer; that one names them all again.)
      add(error.instancePath, () => wordsOf(schema, error, value))
    }
  }
  const rank = (problem: FieldError): number => order.get(problem.pointer) ?? order.size
  return [...found.values()].sort((a, b) => rank(a) - rank(b))
}

/**
 * The words of one refusal: a wrong type in the words every rule shares; otherwise the
 * `x-error-message` of the sub-schema that refused, or, for a sub-schema without words whose format
 * can say why (an image), the format's reason. A `false` schema (`additionalProperties: false`)
 * has no room for words: the object schema that holds it has them.
 */
function wordsOf(schema: TSchema, error: TValidationError, value: unknown): string {
  if (error.keyword === 'type') return mustBeOfType(error.params.type)
  const path = error.schemaPath.slice(1)
  const refusing = objectAt(schema, error.keyword === 'boolean' ? path.slice(0, path.lastIndexOf('/')) : path)
  const words = refusing[ERROR_MESSAGE]
  if (typeof words === 'string') return words
  return formatRefusal(refusing.format, valueAt(value, error.instancePath)) ?? NOT_VALID
}

/** Each field's JSON pointer in schema order, nested objects' fields right after their own. */
function fieldOrder(schema: unknown, under = '', order = new Map<string, number>()): Map<string, number> {
  for (const [name, property] of Object.entries(objectAt(schema, '/properties'))) {
    const pointer = `${under}/${encodeSegment(name)}`
    order.set(pointer, order.size)
    fieldOrder(property, pointer, order)
  }
  return order
}
