/*
 * JSON pointers (RFC 6901), as TypeBox writes them in a validation error: `instancePath` into the
 * value, `schemaPath` (after its `#`) into the schema. Only what the wire validator needs.
 */

/** A property name as one segment of a pointer: `~` and `/` escaped. */
export function encodeSegment(name: string): string {
  return name.replaceAll('~', '~0').replaceAll('/', '~1')
}

/** The names a pointer steps through, unescaped: `/event_payload/order_id` → event_payload, order_id. */
export function pointerSegments(pointer: string): string[] {
  return pointer === '' ? [] : pointer.slice(1).split('/').map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
}

/** What `pointer` names inside `root`, or undefined when it names nothing. */
export function valueAt(root: unknown, pointer: string): unknown {
  let found = root
  for (const segment of pointerSegments(pointer)) found = isObject(found) ? found[segment] : undefined
  return found
}

/** The object (a schema, say) that `pointer` names inside `root`, or an empty one when it names none. */
export function objectAt(root: unknown, pointer: string): Readonly<Record<string, unknown>> {
  const found = valueAt(root, pointer)
  return isObject(found) ? found : {}
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null
}
