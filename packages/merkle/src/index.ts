export { leafHash, nodeHash, EMPTY_ROOT, toHex, fromHex, type Hash } from './hash.js'
export { hashesOf, type TreeHashes } from './tree-hashes.js'
export { subtreeRoot, treeRoot } from './root.js'
export { inclusionProof, verifyInclusion } from './inclusion.js'
export { consistencyProof, verifyConsistency } from './consistency.js'
export { CompactRange, frontierOf, type PerfectNode } from './compact-range.js'
export {
  treeHeadMessage, signTreeHead, verifyTreeHead, parseTreeHead, keyIdOf, rawPublicKey, type SignedTreeHead,
} from './tree-head.js'
export { leafText, type LeafFields } from './verify/leaf.js'
export { signKeyStatement, type KeyChange, type KeyStatement } from './key-statement.js'
export { sealStatementMessage, signSealStatement, verifySealStatement, type SealFacts, type SealStatement } from './seal-statement.js'
