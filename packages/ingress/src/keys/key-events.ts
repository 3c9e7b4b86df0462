import type { RecordedEvent } from '@waybill/event-store'
import type { Scope } from './scopes.js'

/** Each key has its own stream, so an authentication reads a handful of events by id. */
export function keyStreamName(keyId: string): string {
  return `apikey-${keyId}`
}
export const KEY_CATEGORY = 'apikey'

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
  /** Revision of the key stream's last event, for the next append's expected revision. */
  readonly revision: number
}

/** Folds a key stream; null when the stream holds no KeyIssued. */
export function foldKeyStream(events: readonly RecordedEvent[]): KeyRecord | null {
  let record = null as KeyRecord | null
  for (const event of events) {
    if (event.type === 'KeyIssued') {
      const data = event.data as unknown as KeyIssuedData
      record = {
        keyId: data.key_id, account: data.account, scopes: data.scopes, hash: data.hash, test: data.test,
        state: 'active', replaces: data.replaces, replacedBy: null, issuedAt: data.issued_at,
        revokedAt: null, reason: null, revision: event.revision,
      }
    } else if (record !== null && event.type === 'KeyRevoked') {
      const data = event.data as unknown as KeyRevokedData
      record = { ...record, state: 'revoked', revokedAt: data.revoked_at, reason: data.reason, revision: event.revision }
    } else if (record !== null && event.type === 'KeyRotated') {
      const data = event.data as unknown as KeyRotatedData
      record = { ...record, state: 'rotated', replacedBy: data.replacement_key_id, revision: event.revision }
    }
  }
  return record
}
