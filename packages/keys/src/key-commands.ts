import type { KeyIssuedData, KeyRevokedData, KeyRotatedData } from './key-events.js'

interface Command<Type extends string, Data> {
  readonly type: Type
  /** What the event would hold: time, key id and hash are chosen by the caller, not the decider. */
  readonly data: Data
  /** The id of the event this command would append; a command whose id is in the stream is already applied. */
  readonly eventId: string
}

/** Issue a key whose id, hash and test flag come from `generateApiKey`. */
export type IssueKey = Command<'IssueKey', KeyIssuedData>
/** Revoke an active key for good. */
export type RevokeKey = Command<'RevokeKey', KeyRevokedData>
/** The last step of a rotation: link a revoked key to the key issued to replace it. */
export type LinkReplacement = Command<'LinkReplacement', KeyRotatedData>

export type KeyCommand = IssueKey | RevokeKey | LinkReplacement
