/** What an event changed: the fields whose value differs between the state before it and after it. */

export interface Change {
  readonly field: string
  readonly before: unknown
  readonly after: unknown
}

type State = Readonly<Record<string, unknown>> | null | undefined

export function changesBetween(before: State, after: State): Change[] {
  const previous = before ?? {}
  const next = after ?? {}
  const fields = [...new Set([...Object.keys(previous), ...Object.keys(next)])].sort()
  return fields
    .filter((field) => show(previous[field]) !== show(next[field]))
    .map((field) => ({ field, before: previous[field], after: next[field] }))
}

/** A value as one line of text: absent and null read "—", images by their type, size and hash. */
export function show(value: unknown): string {
  if (value === undefined || value === null) return '—'
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  if (isImageRef(value)) return `${value.media_type}, ${value.bytes} bytes, sha256 ${value.sha256.slice(0, 12)}…`
  if (isSealed(value)) return `sealed with the order's key (${value.box.length} characters)`
  if (isBlobRef(value)) return `${value.media_type}, ${value.bytes} bytes, sealed blob ${value.blob.slice(0, 12)}…`
  return JSON.stringify(value)
}

function isSealed(value: unknown): value is { key: string; iv: string; box: string } {
  return typeof value === 'object' && value !== null && 'key' in value && 'iv' in value && 'box' in value && typeof value.box === 'string'
}

function isBlobRef(value: unknown): value is { blob: string; media_type: string; bytes: number } {
  return typeof value === 'object' && value !== null && 'blob' in value && 'media_type' in value && 'bytes' in value &&
    typeof value.blob === 'string' && typeof value.media_type === 'string' && typeof value.bytes === 'number'
}

function isImageRef(value: unknown): value is { sha256: string; media_type: string; bytes: number } {
  return typeof value === 'object' && value !== null && 'sha256' in value && 'media_type' in value && 'bytes' in value &&
    typeof value.sha256 === 'string' && typeof value.media_type === 'string' && typeof value.bytes === 'number'
}

/** How far from its event date an event was received, e.g. "2 h 5 min after the event date". */
export function lag(eventDate: string | null, receivedAt: string | null): string {
  if (eventDate === null || receivedAt === null) return ''
  const ms = Date.parse(receivedAt) - Date.parse(eventDate)
  if (Number.isNaN(ms)) return ''
  const direction = ms >= 0 ? 'after the event date' : 'before the event date'
  let rest = Math.round(Math.abs(ms) / 1000)
  const parts: string[] = []
  for (const [unit, size] of [['d', 86_400], ['h', 3600], ['min', 60]] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)} ${unit}`)
      rest %= size
    }
  }
  if (rest > 0 || parts.length === 0) parts.push(`${rest} s`)
  return `${parts.slice(0, 2).join(' ')} ${direction}`
}
