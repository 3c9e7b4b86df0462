export * from './port.js'
export * from './errors.js'
export { START_POSITION, positionToString, parsePosition, comparePositions } from './position.js'
export { categoryOf } from './category.js'
export { hashEvent, verifyStreamChain, type HashedEventFields, type ChainVerdict } from './hash-chain.js'
export {
  openSqliteEventStore, type SqliteEventStore, type SqliteEventStoreOptions,
} from './sqlite/sqlite-event-store.js'
export { openMemoryEventStore, type MemoryEventStore, type MemoryEventStoreOptions } from './memory/memory-event-store.js'
export { handleCommand, type HandleCommandOptions, type CommandResult } from './command-handler.js'
export { openFileBlobStore, type BlobStore } from './blob/file-blob-store.js'
export { summarizeBatchSizes } from './sqlite/group-commit-stats.js'
export * from './eventstoredb/index.js'
export * from './preflight/index.js'
