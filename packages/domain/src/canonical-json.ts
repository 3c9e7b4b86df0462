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
  const entries = Object.keys(value)
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`)
  return `{${entries.join(',')}}`
}
