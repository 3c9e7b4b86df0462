import { rmSync } from 'node:fs'
import { basename, join } from 'node:path'
import type { Database } from 'better-sqlite3'
import { comparePositions, type Position, type ProjectionEvent } from '@waybill/event-store'
import type { EventSource, PulledBatch } from '../runner/event-source.js'
import type { ProjectionWriter } from '../runner/projection.js'
import {
  currentGeneration, fsyncPath, newGenerationName, removeOldGenerations, switchGeneration, type GenerationFiles,
} from '../generation/pointer.js'

export interface RebuildProgress {
  /** Events of the projection read so far. */
  readonly events: number
  /** Commit position reached, and the head when the rebuild started (for a percentage/ETA). */
  readonly position: bigint
  readonly head: bigint
  readonly elapsedMs: number
}

/** Batches read ahead of the one being applied. */
const READ_AHEAD = 2

/** A batch a projection prepared (`BuildOptions.prepare`): `done()` once it is applied. */
interface Prepared {
  done(): void
}

/** A projection's writer in bulk mode, on a file nobody reads yet. */
export interface BulkWriter extends ProjectionWriter {
  readonly db: Database
}

export interface BuildOptions<Writer extends BulkWriter> {
  readonly source: EventSource
  readonly dataDir: string
  readonly files: GenerationFiles
  /** Opens the new file in bulk mode. */
  readonly open: (path: string) => Writer
  readonly batchSize: number
  readonly onProgress?: ((progress: RebuildProgress) => void) | undefined
  /**
   * Once the log was read to its end: what the projection does before its file is finished,
   * maybe reading on with `readToEnd` (which answers the events it added); a throw refuses
   * the swap and deletes the file.
   */
  readonly complete: (writer: Writer, readToEnd: () => Promise<number>) => Promise<void> | void
  /**
   * Called with each batch as soon as it is read, before the batch ahead of it is applied, and
   * awaited before it is applied itself: the projection prepares a batch (opens its sealed parts
   * on another thread) while the one before is applied. `done()` once it is applied.
   */
  readonly prepare?: ((events: readonly ProjectionEvent[]) => Promise<Prepared>) | undefined
  /** Makes the indexes a bulk load left out. */
  readonly indexes: (db: Database) => void
  /** Builds the new file but does not swap to it (tests inspect it). */
  readonly swap?: boolean | undefined
}

export interface BuildResult {
  readonly events: number
  readonly elapsedMs: number
  readonly path: string
  readonly previousPath: string
  readonly checkpoint: Position | null
}

/**
 * Builds a new generation of a projection beside the live one (docs/design.md#read-model-generations-and-rebuild):
 * from position 0 into `<stem>.<time>-<pid>.sqlite` in bulk mode, then indexes, WAL, a
 * checkpoint and an fsync, then the pointer switched atomically. Readers and the live
 * projection follow on their next query or batch; the previous file stays until the next
 * rebuild. A failure or a refusal deletes the new file and leaves the live one as it was.
 */
export async function buildBeside<Writer extends BulkWriter>(options: BuildOptions<Writer>): Promise<BuildResult> {
  const { source } = options
  const previous = currentGeneration(options.dataDir, options.files)
  const fileName = newGenerationName(options.files)
  const path = join(options.dataDir, fileName)
  const started = performance.now()
  const startHead = await source.headPosition()
  const writer = options.open(path)
  let events = 0
  const read = async (after: Position | null): Promise<{ batch: PulledBatch; prepared: Promise<Prepared> | undefined }> => {
    const batch = await source.pull(after, options.batchSize)
    const prepared = options.prepare?.(batch.events)
    // Awaited once the batch before is applied; until then a failure is not left unhandled.
    prepared?.catch(() => undefined)
    return { batch, prepared }
  }
  const readToEnd = async (): Promise<number> => {
    const before = events
    const ahead = [await read(writer.checkpoint())]
    for (;;) {
      const { batch, prepared } = ahead.shift() as (typeof ahead)[number]
      // The next batches are read, and sent to be prepared, before this one is applied: the
      // preparing thread is never left waiting for the next batch while this thread applies one.
      for (let last = ahead.at(-1)?.batch ?? batch; ahead.length < READ_AHEAD && !last.complete; last = ahead.at(-1)?.batch ?? batch) {
        ahead.push(await read(last.through))
      }
      const ready = await prepared
      writer.applyBatch(batch.events, batch.through)
      ready?.done()
      events += batch.events.length
      const reached = writer.checkpoint()
      const head = startHead !== null && (reached === null || comparePositions(startHead, reached) > 0) ? startHead : reached
      options.onProgress?.({ events, position: reached?.commit ?? 0n, head: head?.commit ?? 0n, elapsedMs: performance.now() - started })
      if (batch.complete) return events - before
    }
  }
  try {
    await readToEnd()
    await options.complete(writer, readToEnd)
    options.indexes(writer.db)
    writer.db.pragma('journal_mode = WAL')
    writer.db.pragma('wal_checkpoint(TRUNCATE)')
    const checkpoint = writer.checkpoint()
    writer.close()
    fsyncPath(path)
    if (options.swap !== false) {
      switchGeneration(options.dataDir, options.files, fileName)
      removeOldGenerations(options.dataDir, options.files, [fileName, basename(previous.path)])
    }
    return { events, elapsedMs: performance.now() - started, path, previousPath: previous.path, checkpoint }
  } catch (error) {
    writer.close()
    rmSync(path, { force: true })
    throw error
  }
}
