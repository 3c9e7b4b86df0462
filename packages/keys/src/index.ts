export { AUDIT_SCOPE, READ_ONLY_SCOPES, SCOPES, SCOPE_FOR_EVENT, isScope, type Scope } from './scopes.js'
export { requirePrincipal, requireReadAccess, requireScope, type Principal, type ReadAccess } from './principal.js'
export { findKeyTokens, redactKeyTokens, generateApiKey, hashApiKey, keyMatchesHash, parseApiKey, type NewApiKey } from './api-key.js'
export {
  asKeyEvent, KEY_CATEGORY, KEY_USE_CATEGORY, keyStreamName, keyUseStreamName,
  type KeyEvent, type KeyGraceEnded, type KeyGraceEndedData, type KeyIssued, type KeyIssuedData, type KeyRevoked,
  type KeyRevokedData, type KeyRotated, type KeyRotatedData, type KeyUpdated, type KeyUpdatedData, type KeyUsed,
  type KeyUsedData, type StoredKeyEvent,
} from './key-events.js'
export type {
  EndGrace, IssueKey, KeyChanges, KeyCommand, LinkReplacement, RecordUse, RevokeKey, UpdateKey,
} from './key-commands.js'
export { initialKeyState, type KeyRecord, type KeyState, type KeyStreamState } from './key-state.js'
export { issueProblem, issueRejection, LABEL_MAX_LENGTH, type IssueRequest, type IssueRuleCode } from './issue-rules.js'
export { isUsableAt, MAX_GRACE_MS, USE_RECORD_INTERVAL_MS } from './key-times.js'
export { keyErrorMessage, KeyRingError, type KeyErrorCode } from './key-errors.js'
export { decide, type KeyDecision } from './decide.js'
export { evolve } from './evolve.js'
export { foldKeyStream, keyDecider } from './key-decider.js'
export {
  KeyRing, type IssuedKey, type IssueKeyInput, type KeyRingOptions, type KeyUpdate, type RotateOptions,
} from './key-ring.js'
export { readSecretFile, replacementKeyPath, testKeyPath, writeSecretFile } from './key-files.js'
export { ensureSandboxKey, type SandboxKey } from './sandbox.js'
export { revokeExposedKey, type ExposureResult } from './key-exposure.js'
