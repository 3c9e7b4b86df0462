import type Database from 'better-sqlite3'
import { outcomeAt, type AppendOutcome, type AppendRequest } from './append-request.js'
import { BatchCommitter } from './batch-committer.js'
import { ensureSchema, openConnection } from './connection.js'
import { reportOf, type Writer, type WriterOptions } from './writer.js'

interface Queued { readonly request: AppendRequest; readonly resolve: (outcome: AppendOutcome) => void }

/**
 * Group commit on the main thread: appends queue up until the next turn of the event loop, then
 * go to disk together. While a commit's fsync runs, the event loop is blocked, so whatever
 * arrived meanwhile (already-read sockets, resolved promises) forms the next batch.
 */
export class InlineWriter implements Writer {
  readonly #db: Database.Database
  readonly #committer: BatchCommitter
  readonly #options: WriterOptions
  #queue: Queued[] = []
  #scheduled = false
  #idle: (() => void) | null = null

  private constructor(db: Database.Database, options: WriterOptions) {
    this.#db = db
    this.#committer = new BatchCommitter(db)
    this.#options = options
  }

  static open(options: WriterOptions): InlineWriter {
    const db = openConnection(options.path, { busyTimeoutMs: options.busyTimeoutMs, walAutocheckpointPages: options.walAutocheckpointPages })
    try {
      ensureSchema(db)
    } catch (error) {
      db.close()
      throw error
    }
    return new InlineWriter(db, options)
  }

  append(request: AppendRequest): Promise<AppendOutcome> {
    return new Promise((resolve) => {
      this.#queue.push({ request, resolve })
      if (!this.#scheduled) {
        this.#scheduled = true
        setImmediate(this.#flush)
      }
    })
  }

  async setMaxPageCount(pages: number): Promise<number> {
    return this.#db.pragma(`max_page_count = ${Math.trunc(pages)}`, { simple: true }) as number
  }

  async close(): Promise<void> {
    if (this.#scheduled) await new Promise<void>((resolve) => { this.#idle = resolve })
    this.#db.close()
  }

  readonly #flush = (): void => {
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#options.maxBatchSize)
      const outcomes = this.#committer.commit(batch.map((queued) => queued.request))
      this.#options.onBatch(reportOf(outcomes))
      batch.forEach((queued, i) => queued.resolve(outcomeAt(outcomes, i)))
    }
    this.#scheduled = false
    this.#idle?.()
    this.#idle = null
  }
}
