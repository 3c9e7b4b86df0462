import type { StoredKeyEvent } from './key-events.js'
import type { KeyStreamState } from './key-state.js'
import { isBefore } from './key-times.js'

/**
 * Folds one stored fact into the state. `decide` never produces a fact that cannot apply (a
 * second KeyIssued, a revocation of a key that is not active, a link on a rotated key, an update
 * of a key that is not active, a grace ended on a key without one); should a stream hold one
 * anyway, or an event type this package does not know, only its id is recorded. So no stored
 * event can bring a revoked or rotated key back to life or lengthen its grace.
 */
export function evolve(state: KeyStreamState, event: StoredKeyEvent): KeyStreamState {
  const eventIds = [...state.eventIds, event.id]
  const { record } = state
  switch (event.type) {
    case 'KeyIssued': {
      if (record !== null) break
      const { data } = event
      return {
        eventIds,
        record: {
          keyId: data.key_id, account: data.account, scopes: data.scopes, hash: data.hash, test: data.test,
          state: 'active', replaces: data.replaces, replacedBy: null, issuedAt: data.issued_at, revokedAt: null, reason: null,
          label: data.label ?? null, expiresAt: data.expires_at ?? null, graceUntil: null, lastUsedAt: null,
        },
      }
    }
    case 'KeyRevoked':
      if (record === null || record.state !== 'active') break
      return {
        eventIds,
        record: { ...record, state: 'revoked', revokedAt: event.data.revoked_at, reason: event.data.reason, graceUntil: event.data.grace_until ?? null },
      }
    case 'KeyRotated':
      // Applies to an active key too: decide never links one, but a stream holding such a link must
      // not leave the key usable.
      if (record === null || record.state === 'rotated') break
      return { eventIds, record: { ...record, state: 'rotated', replacedBy: event.data.replacement_key_id } }
    case 'KeyUpdated': {
      if (record === null || record.state !== 'active') break
      const { data } = event
      return { eventIds, record: { ...record, scopes: data.scopes, label: data.label, expiresAt: data.expires_at } }
    }
    case 'KeyUsed':
      // Uses from several instances may land out of order: the record keeps the latest.
      if (record === null || (record.lastUsedAt !== null && !isBefore(record.lastUsedAt, event.data.used_at))) break
      return { eventIds, record: { ...record, lastUsedAt: event.data.used_at } }
    case 'KeyGraceEnded':
      // Only ever shortens a grace: the earlier of the two ends stands.
      if (record === null || record.graceUntil === null || !isBefore(event.data.ended_at, record.graceUntil)) break
      return { eventIds, record: { ...record, graceUntil: event.data.ended_at, reason: event.data.reason } }
  }
  return { ...state, eventIds }
}
