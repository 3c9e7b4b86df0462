export { SCOPES, SCOPE_FOR_EVENT, isScope, type Scope } from './scopes.js'
export { requirePrincipal, requireScope, type Principal } from './principal.js'
export { findKeyTokens, redactKeyTokens, generateApiKey, hashApiKey, keyMatchesHash, parseApiKey, type NewApiKey } from './api-key.js'
export {
  asKeyEvent, KEY_CATEGORY, keyStreamName,
  type KeyEvent, type KeyIssued, type KeyIssuedData, type KeyRevoked, type KeyRevokedData, type KeyRotated,
  type KeyRotatedData, type StoredKeyEvent,
} from './key-events.js'
export type { IssueKey, KeyCommand, LinkReplacement, RevokeKey } from './key-commands.js'
export { initialKeyState, type KeyRecord, type KeyState, type KeyStreamState } from './key-state.js'
export { issueProblem, issueRejection, type IssueRequest, type IssueRuleCode } from './issue-rules.js'
export { keyErrorMessage, KeyRingError, type KeyErrorCode } from './key-errors.js'
export { decide, type KeyDecision } from './decide.js'
export { evolve } from './evolve.js'
export { foldKeyStream, keyDecider } from './key-decider.js'
export { KeyRing, type IssuedKey, type IssueKeyInput } from './key-ring.js'
export { readSecretFile, replacementKeyPath, testKeyPath, writeSecretFile } from './key-files.js'
export { ensureSandboxKey, type SandboxKey } from './sandbox.js'
export { revokeExposedKey, type ExposureResult } from './key-exposure.js'
