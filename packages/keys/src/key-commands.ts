import type { KeyGraceEndedData, KeyIssuedData, KeyRevokedData, KeyRotatedData, KeyUsedData } from './key-events.js'
import type { Scope } from './scopes.js'

interface Command<Type extends string, Data> {
  readonly type: Type
  /** What the event would hold: time, key id and hash are chosen by the caller, not the decider. */
  readonly data: Data
  /** The id of the event this command would append; a command whose id is in the stream is already applied. */
  readonly eventId: string
}

/** What an operator changes on an active key; a member left out stays as it is. */
export interface KeyChanges {
  readonly key_id: string
  readonly scopes?: readonly Scope[]
  /** null removes the label. */
  readonly label?: string | null
  /** null: the key no longer expires. */
  readonly expires_at?: string | null
  readonly updated_at: string
}

/** Issue a key whose id, hash and test flag come from `generateApiKey`. */
export type IssueKey = Command<'IssueKey', KeyIssuedData>
/** Revoke an active key: at once, or at the end of a rotation's grace (`grace_until`). */
export type RevokeKey = Command<'RevokeKey', KeyRevokedData>
/** The last step of a rotation: link a revoked key to the key issued to replace it. */
export type LinkReplacement = Command<'LinkReplacement', KeyRotatedData>
/** Change an active key's scopes, label or expiry. */
export type UpdateKey = Command<'UpdateKey', KeyChanges>
/** Record that the key authenticated a request (at most once a minute). */
export type RecordUse = Command<'RecordUse', KeyUsedData>
/** Cut a rotation's grace short: the key stops authenticating at `ended_at`. */
export type EndGrace = Command<'EndGrace', KeyGraceEndedData>

export type KeyCommand = IssueKey | RevokeKey | LinkReplacement | UpdateKey | RecordUse | EndGrace
