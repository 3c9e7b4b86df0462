import type { EventStore } from '@waybill/event-store'
import { OpeningThreads, type SubjectKeyStore } from '@waybill/personal-data'
import { READ_MODEL_FILES } from '../generation/pointer.js'
import { createIndexes } from '../orders/sql-schema.js'
import { openAhead } from '../orders/open-ahead.js'
import { rebuildOpener, REPLACED_BY_NEXT, skippingReplaced } from '../orders/opener.js'
import { ReadModelWriter } from '../orders/writer.js'
import { storeEventSource, type EventSource } from '../runner/event-source.js'
import { buildBeside, type BuildResult, type RebuildProgress } from './build-beside.js'

export interface RebuildOptions {
  readonly store?: EventStore
  /**
   * Where the events come from instead of `store`'s log. Made by `storeEventSource` without
   * `followedBy`, it marks nothing, and the rebuild then opens every part (tests compare the two).
   */
  readonly source?: EventSource
  readonly dataDir: string
  /** The subject keys, to open each event's personal part. */
  readonly keys: Pick<SubjectKeyStore, 'get' | 'getMany'>
  /**
   * Events per read and transaction. Default 1,000: in bulk mode a transaction costs little, and
   * a batch of parsed events this small dies young in the garbage collector's nursery (against
   * 20,000, measured about 10% less CPU).
   */
  readonly batchSize?: number
  /** Called after every batch. */
  readonly onProgress?: (progress: RebuildProgress) => void
  /** Builds the new file but does not swap to it (tests inspect it). */
  readonly swap?: boolean
  /**
   * Opens the events' sealed parts on threads of their own while the batch before is applied
   * (`openAhead`). Default true; false opens them on this thread, one at a time, as they are folded.
   */
  readonly openingThread?: boolean
}

export type RebuildResult = BuildResult

/**
 * Rebuilds the `orders` read model from the start of the log into a new file while the live one
 * keeps answering, then swaps the generation pointer atomically (docs/design.md#read-model-generations-and-rebuild).
 * Only the orders: the audit log is a projection of its own, which this neither reads, writes
 * nor checks, so a rebuild under write traffic has nothing to refuse.
 */
export async function rebuildReadModel(options: RebuildOptions): Promise<RebuildResult> {
  const source = options.source ?? (options.store !== undefined ? storeEventSource(options.store, { followedBy: REPLACED_BY_NEXT }) : undefined)
  if (source === undefined) throw new TypeError('rebuildReadModel needs a store or a source')
  let thread: OpeningThreads | null = null
  try {
    thread = options.openingThread === false ? null : new OpeningThreads()
    const ahead = thread === null ? null : openAhead(options.keys, thread)
    return await buildBeside({
      source,
      dataDir: options.dataDir,
      files: READ_MODEL_FILES,
      open: (path) => new ReadModelWriter(path, { bulk: true, open: skippingReplaced(ahead?.open ?? rebuildOpener(options.keys)) }),
      prepare: ahead?.prepare,
      batchSize: options.batchSize ?? 1000,
      onProgress: options.onProgress,
      complete: (writer) => writer.flush(),
      indexes: createIndexes,
      swap: options.swap,
    })
  } finally {
    await thread?.close()
    if (options.source === undefined) source.close?.()
  }
}
