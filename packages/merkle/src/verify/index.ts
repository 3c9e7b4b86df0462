/**
 * `@waybill/merkle/verify`: what a browser needs to check Waybill's audit log, with no Node.js
 * module and no Buffer (docs/audit.md#the-console). The formats (leaf, head message, key id) and
 * the RFC 9162 verifiers are the ones the server uses: `@waybill/merkle` is built on these files.
 */
export { leafHash, nodeHash, verifyInclusion, verifyConsistency, keyIdOf, verifyTreeHead, type HeadCheck } from './verifiers.js'
export { subtleSha256, type Sha256 } from './hashing.js'
export { treeHeadMessage, isWellFormedHead, type SignedTreeHead } from './tree-head.js'
export { leafBytes, leafText, type LeafFields } from './leaf.js'
export { base64ToBytes, bytesToHex, hashFromHex, hexToBytes } from './bytes.js'
export {
  keyStatementMessage, checkKeySet, checkHeadKey, type KeyStatement, type AuditKey, type KeyValidity, type TrustedKey, type CheckedKeySet,
} from './key-set.js'
