import { readdirSync, rmSync } from 'node:fs'
import { basename, join } from 'node:path'
import type { EventStore, Position } from '@waybill/event-store'
import { storeEventSource, type EventSource } from '../runner/event-source.js'
import { currentGeneration, fsyncPath, switchGeneration } from '../orders/generation.js'
import { ReadModelWriter } from '../orders/writer.js'
import { createIndexes } from '../orders/sql-schema.js'
import type { HeadStore } from '../audit/head-store.js'
import { toHex } from '@waybill/merkle'

export interface RebuildProgress {
  /** Order events read so far. */
  readonly events: number
  /** Commit position reached, and the head when the rebuild started (for a percentage/ETA). */
  readonly position: bigint
  readonly head: bigint
  readonly elapsedMs: number
}

export interface RebuildOptions {
  readonly store?: EventStore
  readonly source?: EventSource
  readonly dataDir: string
  /** Events per transaction. Default 20,000: big transactions are what makes a rebuild fast. */
  readonly batchSize?: number
  /** Called after every batch. */
  readonly onProgress?: (progress: RebuildProgress) => void
  /** Builds the new file but does not swap to it (tests inspect it). */
  readonly swap?: boolean
  /**
   * The kept signed heads: the new tree must agree with every one (its root at each head's size is
   * the head's), or the rebuild fails and the live model stays (docs/audit.md#signed-tree-heads).
   */
  readonly heads?: HeadStore
}

export interface RebuildResult {
  readonly events: number
  readonly elapsedMs: number
  readonly path: string
  readonly previousPath: string
  readonly checkpoint: Position | null
}

/**
 * Rebuilds the `orders` read model from the start of the log into a new file while the live one
 * keeps answering, then swaps the generation pointer atomically. Readers and projectors switch
 * on their next query or batch; the previous file stays on disk until the next rebuild, so a
 * reader that still holds it never reads a deleted model mid-query.
 */
export async function rebuildReadModel(options: RebuildOptions): Promise<RebuildResult> {
  const source = options.source ?? (options.store !== undefined ? storeEventSource(options.store) : undefined)
  if (source === undefined) throw new TypeError('rebuildReadModel needs a store or a source')
  const batchSize = options.batchSize ?? 20_000
  const previous = currentGeneration(options.dataDir)
  const fileName = `read-model.${new Date().toISOString().replace(/[-:.]/g, '')}-${process.pid}.sqlite`
  const path = join(options.dataDir, fileName)
  const started = performance.now()
  const startHead = (await source.headPosition())?.commit ?? 0n
  const model = new ReadModelWriter(path, { bulk: true })
  let events = 0
  try {
    for (;;) {
      const from = model.checkpoint()
      const batch = await source.pull(from, batchSize)
      const caughtUp = batch.complete
      model.applyBatch(batch.events, batch.through)
      events += batch.events.length
      const reached = model.checkpoint()?.commit ?? 0n
      options.onProgress?.({ events, position: reached, head: startHead > reached ? startHead : reached, elapsedMs: performance.now() - started })
      if (caughtUp) break
    }
    model.flush()
    if (options.heads !== undefined) checkHeads(model, options.heads)
    createIndexes(model.db)
    model.db.pragma('journal_mode = WAL')
    model.db.pragma('wal_checkpoint(TRUNCATE)')
    const checkpoint = model.checkpoint()
    model.close()
    fsyncPath(path)
    if (options.swap !== false) {
      switchGeneration(options.dataDir, fileName)
      removeOldGenerations(options.dataDir, [fileName, basename(previous.path)])
    }
    return { events, elapsedMs: performance.now() - started, path, previousPath: previous.path, checkpoint }
  } catch (error) {
    model.close()
    rmSync(path, { force: true })
    throw error
  } finally {
    if (options.source === undefined) source.close?.()
  }
}

/** Throws, naming the first kept head the rebuilt tree disagrees with. */
function checkHeads(model: ReadModelWriter, heads: HeadStore): void {
  const size = model.tree.size()
  for (const head of heads.all()) {
    if (head.tree_size > size) {
      throw new Error(`rebuild refused: the log holds ${size} order events, but a head was signed at ${head.tree_size} ` +
        `(${head.timestamp}): events were cut from the log. Run \`waybill audit verify\`.`)
    }
    const root = toHex(model.tree.root(head.tree_size))
    if (root !== head.root_hash) {
      throw new Error(`rebuild refused: the rebuilt audit tree's root at size ${head.tree_size} is ${root}, but the head signed ` +
        `${head.timestamp} says ${head.root_hash}: the log was changed. Run \`waybill audit verify\`.`)
    }
  }
}

/** Keeps the new and the previous generation; a third one back is no reader's any more. */
function removeOldGenerations(dataDir: string, keep: readonly string[]): void {
  for (const name of readdirSync(dataDir)) {
    const base = name.replace(/-(wal|shm)$/, '')
    if (!/^read-model(\.\d{8}T\d+Z-\d+)?\.sqlite$/.test(base) || keep.includes(base)) continue
    rmSync(join(dataDir, name), { force: true })
  }
}
