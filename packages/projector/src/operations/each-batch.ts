import type { EventStore, Position, RecordedEvent } from '@waybill/event-store'

export interface EachBatchOptions {
  /** Only these categories' events (e.g. the orders'); every event when absent. */
  readonly categories?: readonly string[]
  /** Events a read asks for at most. */
  readonly batch: number
}

/**
 * Every event of the log (of `categories`), a batch at a time, in position order, until a read
 * comes back empty (`readAll` answers at most `batch` events, not necessarily all that remain,
 * so a short batch does not end it) or `use` answers false (or a promise of false). The
 * operations that walk the whole log (verify, compact, the seal) read it through this.
 */
export async function eachBatch(store: Pick<EventStore, 'readAll'>, options: EachBatchOptions,
  use: (batch: readonly RecordedEvent[]) => unknown): Promise<void> {
  const categories = options.categories === undefined ? {} : { categories: options.categories }
  for (let after: Position | null = null; ;) {
    const batch = await store.readAll({ after, maxCount: options.batch, ...categories })
    const last = batch.at(-1)
    if (last === undefined || (await use(batch)) === false) return
    after = last.position
  }
}
