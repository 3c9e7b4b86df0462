import type { Scope } from './scopes.js'

/**
 * Where a key is in its life. An `active` key authenticates until it expires; a `revoked` or
 * `rotated` one only during a rotation's grace (`graceUntil`), and never after it.
 */
export type KeyState = 'active' | 'revoked' | 'rotated'

/** A key as the operator sees it: everything but the secret. */
export interface KeyRecord {
  readonly keyId: string
  readonly account: string
  readonly scopes: readonly Scope[]
  readonly hash: string
  readonly test: boolean
  readonly state: KeyState
  readonly replaces: string | null
  readonly replacedBy: string | null
  readonly issuedAt: string
  readonly revokedAt: string | null
  readonly reason: string | null
  readonly label: string | null
  /** After this time the key no longer authenticates; null: never expires. */
  readonly expiresAt: string | null
  /** A revoked key authenticates until then (a rotation's overlap); null: not at all. */
  readonly graceUntil: string | null
  /** The last recorded use (to the minute); null when none was recorded. */
  readonly lastUsedAt: string | null
}

/** What the key decider folds a key stream into. */
export interface KeyStreamState {
  /** Ids of the events already in the stream, oldest first (for exact-retry detection). */
  readonly eventIds: readonly string[]
  /** Null until the stream holds a KeyIssued. */
  readonly record: KeyRecord | null
}

export function initialKeyState(): KeyStreamState {
  return { eventIds: [], record: null }
}
