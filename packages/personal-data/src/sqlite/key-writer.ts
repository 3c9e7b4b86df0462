import type Database from 'better-sqlite3'
import type { OrderKey } from '../seal.js'
import type { KeyRequest } from '../key-store.js'
import { keyWrites } from './key-database.js'

/** Makes keys durably: in the caller's thread, or in a thread of its own that commits many at once. */
export interface KeyWriter {
  create(requests: readonly KeyRequest[]): Promise<Array<OrderKey | 'erased'>>
  close(): Promise<void>
}

/**
 * The writer of commands that make a few keys and exit, and of tests: each `create` commits (and
 * fsyncs) on the calling thread.
 */
export class InlineKeyWriter implements KeyWriter {
  readonly #writes: ReturnType<typeof keyWrites>

  constructor(db: Database.Database) {
    this.#writes = keyWrites(db)
  }

  create(requests: readonly KeyRequest[]): Promise<Array<OrderKey | 'erased'>> {
    // A throw in the executor rejects the promise: the same answer as the worker writer's.
    return new Promise((resolve) => { resolve(this.#writes.create(requests, new Date().toISOString())) })
  }

  close(): Promise<void> {
    return Promise.resolve()
  }
}
