import type Database from 'better-sqlite3'
import { StoreUnavailableError, WrongExpectedVersionError } from '../errors.js'
import type {
  AppendOptions, AppendResult, CountOptions, EventData, EventStore, LogGaps, Position, ProjectionEvent, ProjectionReadOptions,
  ReadAllOptions, ReadStreamOptions, RecordedEvent, StoreInfo, WriteStats,
} from '../port.js'
import { DEFAULT_READ_ALL_MAX_COUNT } from '../port.js'
import { validateAppend } from '../append-rules.js'
import { DEFAULT_BUSY_TIMEOUT_MS, openConnection } from './connection.js'
import { GroupCommitCounter } from './group-commit-stats.js'
import { importRecorded } from './import-recorded.js'
import { InlineWriter } from './inline-writer.js'
import { ReadStatements } from './read-statements.js'
import { BackgroundCheckpointer } from './background-checkpointer.js'
import { toStoreError } from './storage-error.js'
import { WorkerWriter } from './worker-writer.js'
import type { BatchReport, Writer } from './writer.js'

export interface SqliteEventStoreOptions {
  /** The database file; created with its schema when absent. Several processes may open it. */
  readonly path: string
  /** How long to wait for another writer's lock before failing with StoreUnavailableError. Default 5000. */
  readonly busyTimeoutMs?: number
  /** Most appends written in one transaction. 1 turns group commit off (a commit per append). Default 512. */
  readonly maxBatchSize?: number
  /**
   * Where the write connection lives. `inline` (default): the main thread, batching per turn of
   * the event loop. `worker`: a worker thread, so the main thread keeps running during fsync.
   *
   * Why inline is the default: measured with `pnpm bench:store`
   * (packages/bench/README.md#results), the inline writer commits larger batches (64 of
   * 64 appenders vs ~50, and ~25 vs 64 when the main thread has work of its own) and reaches
   * about 1.5× the worker's appends/s, because the worker starts a
   * new transaction as soon as the first message of the next wave arrives, while the inline
   * writer sees the whole wave at once, and pays no message passing. Its cost: the event loop
   * stalls for the length of each commit (a few ms) or of a wait for another process's lock.
   *
   * With `worker`, WAL checkpoints run on a third thread too (BackgroundCheckpointer), so that no
   * commit waits for one; `inline` keeps SQLite's own checkpoint after a commit every 1,000 pages.
   */
  readonly writer?: 'worker' | 'inline'
  /** Default maxCount of readAll. Default `DEFAULT_READ_ALL_MAX_COUNT`, as on every adapter. */
  readonly readAllBatchSize?: number
}

/**
 * The SQLite adapter: the EventStore port with every optional ability (change notification,
 * projection reads, group-commit statistics, gap audit, import of recorded events), plus what the
 * embedded deployment needs.
 */
export interface SqliteEventStore extends Required<EventStore> {
  readonly path: string
  /** As the port's, with the new head position of the log. */
  onAppended(listener: (head: Position) => void): () => void
  /**
   * Caps the database size at `pages` pages (PRAGMA max_page_count on the write connection);
   * past it appends fail with StoreUnavailableError. Resolves with the cap in force.
   * SQLite never sets it below the current size; pass a large number to lift it.
   */
  setMaxPageCount(pages: number): Promise<number>
}

const DEFAULT_MAX_BATCH_SIZE = 512
/** SQLite's own default `wal_autocheckpoint`, kept where no background checkpointer runs. */
const SQLITE_AUTOCHECKPOINT_PAGES = 1000
/** How often the background checkpointer copies the WAL into the database file. */
const CHECKPOINT_INTERVAL_MS = 100

/** Opens (creating if needed) a SQLite event store. */
export async function openSqliteEventStore(options: SqliteEventStoreOptions): Promise<SqliteEventStore> {
  const counter = new GroupCommitCounter()
  const listeners = new Set<(head: Position) => void>()
  const onBatch = (report: BatchReport): void => {
    counter.record(report.size)
    if (report.lastPosition === null) return
    const head = { commit: report.lastPosition, prepare: report.lastPosition }
    for (const listener of listeners) {
      try {
        listener(head)
      } catch {
        // A listener's failure is its own; the append has committed regardless.
      }
    }
  }
  const writerOptions = {
    path: options.path,
    busyTimeoutMs: options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS,
    maxBatchSize: Math.max(1, options.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE),
    onBatch,
    walAutocheckpointPages: options.writer === 'worker' ? BackgroundCheckpointer.BACKSTOP_PAGES : SQLITE_AUTOCHECKPOINT_PAGES,
  }
  let writer: Writer
  try {
    writer = options.writer === 'worker' ? await WorkerWriter.open(writerOptions) : InlineWriter.open(writerOptions)
  } catch (error) {
    throw toStoreError(error)
  }
  let readDb: Database.Database
  try {
    readDb = openConnection(options.path, { busyTimeoutMs: writerOptions.busyTimeoutMs })
  } catch (error) {
    await writer.close()
    throw toStoreError(error)
  }
  // Started once the writer has made the file and its schema.
  const checkpointer = options.writer === 'worker'
    ? BackgroundCheckpointer.start(options.path, writerOptions.busyTimeoutMs, CHECKPOINT_INTERVAL_MS)
    : null
  return new SqliteStore(options, writer, readDb, counter, listeners, checkpointer)
}

class SqliteStore implements SqliteEventStore {
  readonly path: string
  readonly #writer: Writer
  readonly #readDb: Database.Database
  readonly #reads: ReadStatements
  readonly #counter: GroupCommitCounter
  readonly #listeners: Set<(head: Position) => void>
  readonly #readAllBatch: number
  readonly #checkpointer: BackgroundCheckpointer | null
  readonly #busyTimeoutMs: number
  #closing: Promise<void> | null = null

  constructor(options: SqliteEventStoreOptions, writer: Writer, readDb: Database.Database,
    counter: GroupCommitCounter, listeners: Set<(head: Position) => void>, checkpointer: BackgroundCheckpointer | null) {
    this.path = options.path
    this.#writer = writer
    this.#readDb = readDb
    this.#reads = new ReadStatements(readDb)
    this.#counter = counter
    this.#listeners = listeners
    this.#readAllBatch = options.readAllBatchSize ?? DEFAULT_READ_ALL_MAX_COUNT
    this.#checkpointer = checkpointer
    this.#busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS
  }

  async appendToStream(streamName: string, events: readonly EventData[], options: AppendOptions = {}): Promise<AppendResult> {
    const expectedRevision = options.expectedRevision ?? 'any'
    validateAppend(streamName, events, expectedRevision)
    if (this.#closing !== null) throw new StoreUnavailableError('the event store is closed')
    const outcome = await this.#writer.append({ streamName, events, expectedRevision })
    if (outcome.ok) return outcome.result
    const { failure } = outcome
    if (failure.kind === 'wrong_expected_version') {
      throw new WrongExpectedVersionError(streamName, expectedRevision, failure.actual)
    }
    if (failure.kind === 'unavailable') throw new StoreUnavailableError(failure.message)
    throw new Error(`append to ${streamName} failed: ${failure.message}`)
  }

  async readStream(streamName: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    return this.#read(() => this.#reads.stream(streamName, options.fromRevision ?? 0, options.maxCount ?? -1))
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const after = options.after?.commit ?? 0n
    return this.#read(() => this.#reads.all(after, options.maxCount ?? this.#readAllBatch, options.categories))
  }

  async readAllForProjection(options: ProjectionReadOptions = {}): Promise<ProjectionEvent[]> {
    const after = options.after?.commit ?? 0n
    return this.#read(() =>
      this.#reads.projection(after, options.maxCount ?? this.#readAllBatch, options.categories, options))
  }

  async gaps(sample = 10): Promise<LogGaps> {
    return this.#read(() => this.#reads.gaps(sample))
  }

  async headPosition(): Promise<Position | null> {
    return this.#read(() => this.#reads.head())
  }

  async categoryHead(category: string): Promise<Position | null> {
    return this.#read(() => this.#reads.categoryHead(category))
  }

  async countAfter(options: CountOptions): Promise<number> {
    return this.#read(() => this.#reads.count(options.after?.commit ?? 0n, options.limit, options.categories))
  }

  async serverInfo(): Promise<StoreInfo> {
    const version = this.#read(() => this.#readDb.prepare<[], { v: string }>('SELECT sqlite_version() AS v').get()?.v ?? 'unknown')
    return { kind: 'sqlite', version: `SQLite ${version}`, location: this.path }
  }

  async importRecorded(events: readonly RecordedEvent[]): Promise<void> {
    if (this.#closing !== null) throw new StoreUnavailableError('the event store is closed')
    // A connection of its own, for the one transaction: the writer's (inline or on its thread)
    // never sees these rows, and BEGIN IMMEDIATE orders the two like any two writers.
    const db = openConnection(this.path, { busyTimeoutMs: this.#busyTimeoutMs })
    try {
      importRecorded(db, events)
    } catch (error) {
      throw error instanceof RangeError ? error : toStoreError(error)
    } finally {
      db.close()
    }
  }

  stats(): WriteStats {
    return this.#counter.snapshot()
  }

  onAppended(listener: (head: Position) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  setMaxPageCount(pages: number): Promise<number> {
    return this.#writer.setMaxPageCount(pages)
  }

  close(): Promise<void> {
    // The checkpointer stops first; the last connection to close then checkpoints and removes
    // the WAL, as SQLite always does.
    this.#closing ??= (this.#checkpointer?.stop() ?? Promise.resolve()).then(() => this.#writer.close()).finally(() => {
      this.#readDb.close()
      this.#listeners.clear()
    })
    return this.#closing
  }

  #read<T>(query: () => T): T {
    if (this.#closing !== null) throw new StoreUnavailableError('the event store is closed')
    try {
      return query()
    } catch (error) {
      throw toStoreError(error)
    }
  }
}
