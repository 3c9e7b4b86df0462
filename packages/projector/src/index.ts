/**
 * The projector: the fold and the orders read model, the run loop, rebuild and verify, the audit
 * tree and its signed heads, and their query API (no HTTP: the routes are @waybill/http's).
 */
export { evolveOrderRow, type ProjectedEvent } from './orders/fold.js'
export type { OrderRow } from './orders/order-row.js'
export { ReadModelWriter, ORDERS_PROJECTION, type BatchOutcome } from './orders/writer.js'
export { ReadModel, type ListFilters, type OrderFilter, type AuditPosition } from './orders/reader.js'
export { timestampKey } from './orders/timestamp-key.js'
export { currentGeneration, DEFAULT_READ_MODEL_FILE, POINTER_FILE } from './orders/generation.js'
export { startProjector, LAG_COUNT_LIMIT, type Projector, type ProjectorOptions, type ProjectorStatus, type ProjectorState, type ProjectorLogger } from './runner/start-projector.js'
export { storeEventSource, WAKE_COALESCE_MS, type EventSource, type PulledBatch, type StoreEventSourceOptions } from './runner/event-source.js'
export { rebuildReadModel, type RebuildOptions, type RebuildProgress, type RebuildResult } from './operations/rebuild.js'
export { verifyOrders, type VerifyOptions, type VerifyReport, type BrokenChain, type RowMismatch } from './operations/verify.js'
export { leafBytes, eventLeafHash, type LeafEvent } from './audit/leaf.js'
export { MerkleReader, type StreamLeaf } from './audit/merkle-tables.js'
export { HeadStore, HEADS_FILE } from './audit/head-store.js'
export { loadOrCreateSigningKey, publicKeyDocument, SIGNING_KEY_FILE, type SigningKey, type PublicKeyDocument } from './audit/signing-key.js'
export { headMaker, type AuditOptions, type HeadPolicy, type HeadVerdict } from './audit/head-maker.js'
export { verifyAuditLog, describe as describeLeaf, type AuditVerifyOptions, type AuditVerifyReport, type AuditFinding, type LeafName } from './operations/audit-verify.js'
