import { isRealUtcTime } from '@waybill/domain'
import type { KeyRecord } from './key-state.js'

/** The longest overlap a rotation may give the old key: a grace is a hand-over, not a reprieve. */
export const MAX_GRACE_MS = 30 * 24 * 60 * 60 * 1000

/** A key's use is recorded at most once in this time (the last-used time is exact to it). */
export const USE_RECORD_INTERVAL_MS = 60 * 1000

function instant(time: string): number {
  return isRealUtcTime(time) ? Date.parse(time) : Number.NaN
}

/** `expires_at` must be a real UTC time after `at` (the issue or the update that sets it). */
export function expiryRejection(expiresAt: string, at: string): 'invalid_expiry' | null {
  return instant(expiresAt) > instant(at) ? null : 'invalid_expiry'
}

/** A rotation's grace ends after the revocation, and at most `MAX_GRACE_MS` after it. */
export function graceRejection(graceUntil: string, revokedAt: string): 'invalid_grace' | null {
  const length = instant(graceUntil) - instant(revokedAt)
  return length > 0 && length <= MAX_GRACE_MS ? null : 'invalid_grace'
}

/** Whether `earlier` is a time before `later` (false when either does not parse). */
export function isBefore(earlier: string, later: string): boolean {
  return instant(earlier) < instant(later)
}

/** Whether `later` is less than `USE_RECORD_INTERVAL_MS` after `earlier` (or before it). */
export function withinUseInterval(earlier: string, later: string): boolean {
  return instant(later) - instant(earlier) < USE_RECORD_INTERVAL_MS
}

/**
 * Whether the key authenticates at `now`: an active key until it expires, a revoked or rotated
 * one only before its grace ends (and its expiry, if that comes first). Time is passed in, so the
 * rule is tested without a clock.
 */
export function isUsableAt(record: KeyRecord, now: Date): boolean {
  const at = now.getTime()
  // Written as "not before" so that a time that does not parse refuses the key.
  if (record.expiresAt !== null && !(at < instant(record.expiresAt))) return false
  if (record.state === 'active') return true
  return record.graceUntil !== null && at < instant(record.graceUntil)
}
