import type { Position, ProjectionEvent } from '@waybill/event-store'
import type { StoreEventSourceOptions } from './event-source.js'

/** What every batch reports, whatever else a projection's outcome holds. */
export interface AppliedCount {
  /** Events that changed the projection. */
  readonly applied: number
}

/**
 * A projection's file, open for writing: its checkpoint, and a batch applied with the
 * checkpoint moved in the same transaction (emmett's processor `handle` and its checkpointer).
 */
export interface ProjectionWriter<Outcome extends AppliedCount = AppliedCount> {
  readonly path: string
  /** Position of the last event the file reflects; null when it reflects none. */
  checkpoint(): Position | null
  /**
   * Applies `events` (log order, the projection's categories) and moves the checkpoint to
   * `through` (or the last event) in one transaction; events at or before the checkpoint are
   * duplicates and change nothing.
   */
  applyBatch(events: readonly ProjectionEvent[], through: Position | null): Outcome
  close(): void
}

/**
 * One projection as the loop runs it (`runner/projection-loop.ts`): how its live file is
 * (re)opened, and what follows a batch. Each has its own file and checkpoint, so one that fails
 * (a full disk, a refused file) holds up no other.
 */
export interface Projection<Outcome extends AppliedCount = AppliedCount> {
  /** `orders`, `audit`: names its status and its log lines. */
  readonly name: string
  /** What a read of the log hands it of each event (`storeEventSource`); the orders projection's when absent. */
  readonly read?: ProjectionRead
  /**
   * The writer of the live file: the one open, or, after a rebuild swapped the generation
   * pointer, the new file's (the old one closed). Called before every batch.
   */
  open(): ProjectionWriter<Outcome>
  /** After each committed batch; `caughtUp` when the read reached the end of the log. */
  afterBatch?(outcome: Outcome, caughtUp: boolean): void
  /** Once, when the loop stops after a batch that committed (the audit log's last head). */
  beforeStop?(): void
  /** Closes the writer, if one is open; the next `open()` opens the live file again. */
  close(): void
}

/** What a projection reads of each event's data and metadata. */
export type ProjectionRead = Pick<StoreEventSourceOptions, 'metadataKeys' | 'dataKeys' | 'dataText'>
