export * from './port.js'
export * from './errors.js'
export { START_POSITION, positionToString, parsePosition, comparePositions } from './position.js'
export { backoffDelay, type BackoffPolicy } from './backoff.js'
export { sleep } from './sleep.js'
export { categoryOf } from './category.js'
export { hashEvent, verifyStreamChain, type HashedEventFields, type ChainVerdict } from './hash-chain.js'
export {
  openSqliteEventStore, type SqliteEventStore, type SqliteEventStoreOptions,
} from './sqlite/sqlite-event-store.js'
export { openMemoryEventStore, type MemoryEventStore, type MemoryEventStoreOptions } from './memory/memory-event-store.js'
export { handleCommand, type HandleCommandOptions, type CommandResult } from './command-handler.js'
export { StreamStates, type KnownState } from './stream-states.js'
export { openFileBlobStore, type BlobRead, type BlobStore, type SweepOptions, type SweepReport } from './blob/file-blob-store.js'
export type { BlobUsage } from './blob/blob-usage.js'
export { summarizeBatchSizes } from './sqlite/group-commit-stats.js'
export { siblingWorkerUrl } from './sqlite/worker-url.js'
// The EventStoreDB adapter is its own entry (`@waybill/event-store/eventstoredb`): its client
// (gRPC, protobuf) takes about 0.4 s to load, which every `waybill` command and test would pay
// for a store most of them never open.
export * from './preflight/index.js'
