import type { IssueRuleCode } from './issue-rules.js'

/** Why the key decider refused a command. */
export type KeyErrorCode =
  | IssueRuleCode
  /** IssueKey on a stream that already holds a key (a key id drawn twice). */
  | 'key_exists'
  /** RevokeKey or LinkReplacement on a stream with no key. */
  | 'key_unknown'
  /** RevokeKey on a revoked key. */
  | 'key_revoked'
  /** RevokeKey or LinkReplacement on a key already rotated. */
  | 'key_rotated'
  /** LinkReplacement on a key that is still active: a rotation revokes first. */
  | 'key_active'

/** A key that cannot be issued, rotated or revoked as asked (the operator's mistake, or a lost race). */
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
}

/** What the operator reads when a command on key `keyId` was refused with `code`. */
export function keyErrorMessage(code: KeyErrorCode, keyId: string): string {
  return KEY_ERROR_MESSAGES[code](keyId)
}
