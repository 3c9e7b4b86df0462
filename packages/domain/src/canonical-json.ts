/**
 * JSON with object keys sorted at every depth and no insignificant white space, so that equal
 * values always serialise to equal bytes. Event ids and the stream hash chain are computed over it.
 * `undefined` members are dropped, as JSON.stringify does.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    // Typed string, but undefined for undefined, functions and symbols.
    const text = JSON.stringify(value) as string | undefined
    if (text === undefined) throw new TypeError(`cannot serialise ${typeof value}`)
    return text
  }
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`
  // One pass over the sorted keys, appending to one string: the filter/map/join form allocated
  // three arrays per object, and this runs for every event id, stream hash and audit leaf
  // (measured by the rebuild's CPU profile).
  const object = value as Record<string, unknown>
  let text = '{'
  for (const key of Object.keys(object).sort()) {
    const member = object[key]
    if (member === undefined) continue
    if (text.length > 1) text += ','
    text += `${JSON.stringify(key)}:${canonicalJson(member)}`
  }
  return `${text}}`
}
