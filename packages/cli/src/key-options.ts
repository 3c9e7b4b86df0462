import { isRealUtcTime } from '@waybill/domain'
import { AUDIT_SCOPE, isScope, MAX_GRACE_MS, parseApiKey, SCOPES, type Scope } from '@waybill/keys'
import { UsageError } from './command.js'

const UNIT_MS = { s: 1000, m: 60 * 1000, h: 60 * 60 * 1000, d: 24 * 60 * 60 * 1000 } as const
const DURATION = /^(\d{1,6})(s|m|h|d)$/

/** `24h`, `7d`, `30m`, `90s` in milliseconds; throws UsageError naming `option` otherwise. */
export function parseDuration(option: string, text: string): number {
  const match = DURATION.exec(text)
  if (match === null) throw new UsageError(`${option}: "${text}" is not a duration such as 24h, 7d, 30m or 90s`)
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS]
}

/** --grace: a duration, at most the 30 days the key decider allows; 0 (any unit) means none. */
export function parseGrace(text: string): number {
  const ms = parseDuration('--grace', text)
  if (ms > MAX_GRACE_MS) throw new UsageError(`--grace: at most 30d (${text} asked)`)
  return ms
}

/**
 * --expires: `never` (null), a duration from now (`90d`), a day (`2026-01-31`, its first instant,
 * UTC) or a UTC time in the contract's form (`2026-01-31T12:00:00Z`); always in the future.
 */
export function parseExpiry(text: string, now: Date): string | null {
  if (text === 'never') return null
  let at: number
  if (DURATION.test(text)) at = now.getTime() + parseDuration('--expires', text)
  else if (/^\d{4}-\d{2}-\d{2}$/.test(text) && isRealUtcTime(`${text}T00:00:00Z`)) at = Date.parse(`${text}T00:00:00Z`)
  else if (isRealUtcTime(text)) at = Date.parse(text)
  else throw new UsageError(`--expires: "${text}" is not never, a duration (90d), a day (2026-01-31) or a UTC time (2026-01-31T12:00:00Z)`)
  if (at <= now.getTime()) throw new UsageError(`--expires: ${text} is not in the future`)
  return new Date(at).toISOString()
}

/** --label: the text as given; an empty one (update) removes the label. */
export function parseLabel(text: string): string | null {
  return text === '' ? null : text
}

/** --scopes: names from the list, or `all` for the five account scopes (never orders:audit). */
export function parseScopes(text: string): Scope[] {
  const names = text.split(',').map((s) => s.trim()).filter(Boolean)
  if (names.length === 1 && names[0] === 'all') return [...SCOPES]
  const unknown = names.filter((name) => !isScope(name))
  if (unknown.length > 0) throw new UsageError(`unknown scope "${unknown[0] ?? ''}"; scopes: ${[...SCOPES, AUDIT_SCOPE].join(', ')}, or all`)
  if (names.length === 0) throw new UsageError('--scopes needs at least one scope')
  return names as Scope[]
}

/** What the operator named a key by: its public id, or the whole key (which `findByKey` then checks). */
export type KeyReference = { readonly keyId: string } | { readonly key: string }

/**
 * A key id, or a whole key. Something that starts like a key but is not one is refused here, so
 * that a truncated secret is never echoed back as "no key with id …".
 */
export function parseKeyReference(text: string): KeyReference {
  if (parseApiKey(text) !== null) return { key: text }
  if (/^wb_(live|test)_/.test(text)) throw new UsageError('that is not a whole key (wb_live_ or wb_test_ and 55 letters and digits); give the whole key or its id')
  return { keyId: text }
}
