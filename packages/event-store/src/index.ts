export * from './port.js'
export * from './errors.js'
export { START_POSITION, positionToString, parsePosition, comparePositions } from './position.js'
export { categoryOf } from './category.js'
export {
  canReadForProjection, type ProjectionEvent, type ProjectionReader, type ProjectionReadOptions,
} from './projection-read.js'
export { hashEvent, verifyStreamChain, type HashedEventFields, type ChainVerdict } from './hash-chain.js'
export {
  openSqliteEventStore, type SqliteEventStore, type SqliteEventStoreOptions,
} from './sqlite/sqlite-event-store.js'
export type { LogGaps } from './sqlite/read-statements.js'
export { handleCommand, type HandleCommandOptions, type CommandResult } from './command-handler.js'
export { openFileBlobStore, type BlobStore } from './blob/file-blob-store.js'
export { summarizeBatchSizes, type GroupCommitStats } from './sqlite/group-commit-stats.js'
export * from './eventstoredb/index.js'
