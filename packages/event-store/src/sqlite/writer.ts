import type { AppendOutcome, AppendRequest } from './append-request.js'

/** What the store learns of each committed batch: for stats() and onAppended listeners. */
export interface BatchReport {
  /** Appends in the transaction, whatever their outcome. */
  readonly size: number
  /** Highest position written or confirmed by the batch; null when every append failed. */
  readonly lastPosition: bigint | null
}

/** Owns the write connection and groups appends into transactions. */
export interface Writer {
  append(request: AppendRequest): Promise<AppendOutcome>
  /** `PRAGMA max_page_count` on the write connection: caps the file's size (0 lifts the cap). */
  setMaxPageCount(pages: number): Promise<number>
  /** Waits for queued appends, then closes the connection. */
  close(): Promise<void>
}

export interface WriterOptions {
  readonly path: string
  readonly busyTimeoutMs: number
  /** Most appends per transaction; 1 turns group commit off. */
  readonly maxBatchSize: number
  readonly onBatch: (report: BatchReport) => void
  /** `PRAGMA wal_autocheckpoint` of the write connection, in pages. */
  readonly walAutocheckpointPages: number
}

export function reportOf(outcomes: readonly AppendOutcome[]): BatchReport {
  let lastPosition: bigint | null = null
  for (const outcome of outcomes) {
    if (outcome.ok && (lastPosition === null || outcome.result.position.commit > lastPosition)) {
      lastPosition = outcome.result.position.commit
    }
  }
  return { size: outcomes.length, lastPosition }
}
