/**
 * The projector: the projections over the global log, each with its own file and checkpoint
 * (the orders read model, the audit log with its signed heads), their loop, rebuild and verify,
 * and their query API (no HTTP: the routes are @waybill/http's).
 */
export { evolveOrderRow, type ProjectedEvent } from './orders/fold.js'
export type { OrderRow } from './orders/order-row.js'
export { ReadModelWriter, ORDERS_PROJECTION, type BatchOutcome } from './orders/writer.js'
export { ReadModel, type ListFilters, type OrderFilter, type AuditPosition } from './orders/reader.js'
export { timestampKey } from './orders/timestamp-key.js'
export { currentGeneration, DEFAULT_READ_MODEL_FILE, POINTER_FILE, READ_MODEL_FILES, AUDIT_LOG_FILES, type GenerationFiles } from './generation/pointer.js'
export { startProjector, type Projector, type ProjectorOptions, type ProjectorStatus, type AuditLogStatus } from './runner/start-projector.js'
export { isUp, type ProjectionStatus, type ProjectionState } from './runner/status.js'
export { LAG_COUNT_LIMIT } from './runner/lag.js'
export type { ProjectorLogger } from './runner/logger.js'
export { storeEventSource, WAKE_COALESCE_MS, type EventSource, type PulledBatch, type StoreEventSourceOptions } from './runner/event-source.js'
export { rebuildReadModel, type RebuildOptions, type RebuildResult } from './operations/rebuild.js'
export type { RebuildProgress } from './operations/build-beside.js'
export { verifyOrders, type VerifyOptions, type VerifyReport, type BrokenChain, type RowMismatch } from './operations/verify.js'
export { leafBytes, eventLeafHash, type LeafEvent } from './audit/leaf.js'
export { AuditLog, type AuditLogReadOptions } from './audit/audit-log.js'
export { AuditLogWriter } from './audit/audit-log-writer.js'
export type { StreamLeaf, TreeLeaf } from './audit/merkle-tables.js'
export { HeadStore, HEADS_FILE } from './audit/head-store.js'
export { loadOrCreateSigningKey, publicKeyDocument, SIGNING_KEY_FILE, type SigningKey, type PublicKeyDocument } from './audit/signing-key.js'
export { headMaker, type AuditOptions, type HeadPolicy, type HeadVerdict, type TreeView } from './audit/head-maker.js'
export type { SigningStatus } from './audit/head-signing.js'
export { rebuildAuditLog, type AuditRebuildOptions, type AuditRebuildResult } from './operations/audit-rebuild.js'
export { verifyAuditLog, describe as describeLeaf, type AuditVerifyOptions, type AuditVerifyReport, type AuditFinding, type LeafName } from './operations/audit-verify.js'
