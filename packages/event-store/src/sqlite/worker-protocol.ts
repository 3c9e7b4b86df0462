import type { AppendOutcome, AppendRequest } from './append-request.js'

/** Messages between the store (main thread) and its writer worker. */
export type ToWorker =
  /** The appends the main thread gathered (one turn of its event loop, or up to 1 ms while the worker is busy; worker-writer.ts), in order: one message, not one each. */
  | { readonly type: 'appends'; readonly items: readonly QueuedAppend[] }
  | { readonly type: 'max_page_count'; readonly id: number; readonly pages: number }
  | { readonly type: 'close' }

export type FromWorker =
  | { readonly type: 'ready' }
  | { readonly type: 'open_failed'; readonly message: string; readonly code: string | undefined }
  | { readonly type: 'batch'; readonly ids: readonly number[]; readonly outcomes: readonly AppendOutcome[] }
  | { readonly type: 'pragma'; readonly id: number; readonly value: number }
  | { readonly type: 'closed' }

export interface WorkerConfig {
  readonly path: string
  readonly busyTimeoutMs: number
  readonly maxBatchSize: number
  /** `PRAGMA wal_autocheckpoint` of the write connection (SQLite's default is 1,000 pages). */
  readonly walAutocheckpointPages: number
}

/** One append on its way to the worker, under the id its outcome comes back with. */
export interface QueuedAppend {
  readonly id: number
  readonly request: AppendRequest
}
