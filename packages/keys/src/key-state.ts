import type { Scope } from './scopes.js'

/** Where a key is in its life: only an `active` key authenticates. */
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
