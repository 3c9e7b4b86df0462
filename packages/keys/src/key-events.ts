import type { RecordedEvent } from '@waybill/event-store'
import type { Scope } from './scopes.js'

/** The category of key streams: every key has its own, so authenticating reads a handful of events. */
export const KEY_CATEGORY = 'apikey'

/** The stream of one key: `apikey-<key id>`. */
export function keyStreamName(keyId: string): string {
  return `${KEY_CATEGORY}-${keyId}`
}

export interface KeyIssuedData {
  readonly key_id: string
  readonly account: string
  readonly scopes: readonly Scope[]
  /** sha256 (hex) of the whole key; the key itself is never stored. */
  readonly hash: string
  readonly test: boolean
  /** Set when this key was issued to replace another one. */
  readonly replaces: string | null
  readonly issued_at: string
}

export interface KeyRevokedData {
  readonly key_id: string
  readonly reason: string
  readonly revoked_at: string
}

export interface KeyRotatedData {
  readonly key_id: string
  readonly replacement_key_id: string
  readonly rotated_at: string
}

interface Event<Type extends string, Data> {
  readonly type: Type
  readonly data: Data
}

export type KeyIssued = Event<'KeyIssued', KeyIssuedData>
export type KeyRevoked = Event<'KeyRevoked', KeyRevokedData>
export type KeyRotated = Event<'KeyRotated', KeyRotatedData>

/** The facts stored in a key stream. */
export type KeyEvent = KeyIssued | KeyRevoked | KeyRotated

/** A key event as the decider folds it: with the id it was stored under. */
export type StoredKeyEvent = KeyEvent & { readonly id: string }

/**
 * The one typed boundary between the store's JSON and the key events. Key streams are written
 * only through the key decider, so their data has these shapes; a type this package does not know
 * passes through, and `evolve` records only its id.
 */
export function asKeyEvent(event: Pick<RecordedEvent, 'id' | 'type' | 'data'>): StoredKeyEvent {
  return { id: event.id, type: event.type, data: event.data } as unknown as StoredKeyEvent
}
