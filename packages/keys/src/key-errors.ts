import type { IssueRuleCode } from './issue-rules.js'

/** Why the key decider refused a command. */
export type KeyErrorCode =
  | IssueRuleCode
  /** IssueKey on a stream that already holds a key (a key id drawn twice). */
  | 'key_exists'
  /** Any command but IssueKey on a stream with no key. */
  | 'key_unknown'
  /** RevokeKey or UpdateKey on a revoked key. */
  | 'key_revoked'
  /** RevokeKey, LinkReplacement or UpdateKey on a key already rotated. */
  | 'key_rotated'
  /** LinkReplacement on a key that is still active: a rotation revokes first. */
  | 'key_active'
  /** An expiry that is not a time after the issue or update that sets it. */
  | 'invalid_expiry'
  /** A rotation's grace that does not end after the revocation, or lasts more than MAX_GRACE_MS. */
  | 'invalid_grace'
  /** EndGrace on a key that has no grace left to cut (active, revoked at once, or its grace over). */
  | 'no_grace'

/** A key that cannot be issued, changed, rotated or revoked as asked (the operator's mistake, or a lost race). */
export class KeyRingError extends Error {
  constructor(readonly code: KeyErrorCode, message: string) {
    super(message)
    this.name = 'KeyRingError'
  }
}

const KEY_ERROR_MESSAGES: { readonly [Code in KeyErrorCode]: (keyId: string) => string } = {
  invalid_account: (keyId) => `key ${keyId}: the account breaks the account rule`,
  test_key_outside_sandbox: (keyId) => `key ${keyId}: a test key outside the sandbox account`,
  no_scopes: (keyId) => `key ${keyId}: no scope`,
  key_exists: (keyId) => `key ${keyId} already exists`,
  key_unknown: (keyId) => `no key with id ${keyId}`,
  key_revoked: (keyId) => `key ${keyId} is already revoked`,
  key_rotated: (keyId) => `key ${keyId} is already rotated`,
  key_active: (keyId) => `key ${keyId} is still active; a rotation revokes it first`,
  wildcard_not_auditor: (keyId) => `key ${keyId}: a key of every account (*) holds orders:audit and nothing that writes`,
  audit_outside_wildcard: (keyId) => `key ${keyId}: orders:audit belongs to keys of every account (*) only`,
  invalid_label: (keyId) => `key ${keyId}: the label is blank, too long or holds control characters`,
  invalid_expiry: (keyId) => `key ${keyId}: the expiry must be a time after now`,
  invalid_grace: (keyId) => `key ${keyId}: a grace must end after the rotation and last at most 30 days`,
  no_grace: (keyId) => `key ${keyId} has no grace left to end`,
}

/** What the operator reads when a command on key `keyId` was refused with `code`. */
export function keyErrorMessage(code: KeyErrorCode, keyId: string): string {
  return KEY_ERROR_MESSAGES[code](keyId)
}
