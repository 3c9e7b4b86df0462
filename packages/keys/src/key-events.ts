import type { RecordedEvent } from '@waybill/event-store'
import type { Scope } from './scopes.js'

/** The category of key streams: every key has its own, so authenticating reads a handful of events. */
export const KEY_CATEGORY = 'apikey'

/**
 * The category of use streams. A key's uses (KeyUsed, up to one a minute for as long as it is
 * used) are kept out of its key stream, which every authentication reads whole: there they would
 * make each request slower the longer the key lives.
 */
export const KEY_USE_CATEGORY = 'apikeyuse'

/** The stream of one key: `apikey-<key id>`. */
export function keyStreamName(keyId: string): string {
  return `${KEY_CATEGORY}-${keyId}`
}

/** Where the uses of one key are recorded: `apikeyuse-<key id>`. */
export function keyUseStreamName(keyId: string): string {
  return `${KEY_USE_CATEGORY}-${keyId}`
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
  /** The operator's note about the key; absent from keys issued before keys had labels. */
  readonly label?: string | null
  /** When the key stops authenticating; absent (or null) for a key that does not expire. */
  readonly expires_at?: string | null
}

export interface KeyRevokedData {
  readonly key_id: string
  readonly reason: string
  readonly revoked_at: string
  /** A rotation's overlap: the key keeps authenticating until then. Absent (or null): at once. */
  readonly grace_until?: string | null
}

export interface KeyRotatedData {
  readonly key_id: string
  readonly replacement_key_id: string
  readonly rotated_at: string
}

/** The settings of an active key after an operator changed them: all of them, changed or not. */
export interface KeyUpdatedData {
  readonly key_id: string
  readonly scopes: readonly Scope[]
  readonly label: string | null
  readonly expires_at: string | null
  readonly updated_at: string
}

/** The key authenticated a request at `used_at` (stored in the key's use stream). */
export interface KeyUsedData {
  readonly key_id: string
  readonly used_at: string
}

/** A key in its rotation's grace stops authenticating now (it was sent over plain HTTP). */
export interface KeyGraceEndedData {
  readonly key_id: string
  readonly reason: string
  readonly ended_at: string
}

interface Event<Type extends string, Data> {
  readonly type: Type
  readonly data: Data
}

export type KeyIssued = Event<'KeyIssued', KeyIssuedData>
export type KeyRevoked = Event<'KeyRevoked', KeyRevokedData>
export type KeyRotated = Event<'KeyRotated', KeyRotatedData>
export type KeyUpdated = Event<'KeyUpdated', KeyUpdatedData>
export type KeyUsed = Event<'KeyUsed', KeyUsedData>
export type KeyGraceEnded = Event<'KeyGraceEnded', KeyGraceEndedData>

/** The facts stored about a key: in its key stream, and KeyUsed in its use stream. */
export type KeyEvent = KeyIssued | KeyRevoked | KeyRotated | KeyUpdated | KeyUsed | KeyGraceEnded

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
