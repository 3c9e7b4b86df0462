import { rmSync, statSync } from 'node:fs'
import { basename, join } from 'node:path'
import Sqlite, { type Database } from 'better-sqlite3'
import { ORDER_CATEGORY } from '@waybill/domain'
import type { BlobStore, EventStore, SweepReport } from '@waybill/event-store'
import { imagesNamedBy } from '../audit/images.js'
import { eachBatch } from './each-batch.js'
import {
  currentGeneration, fsyncPath, newGenerationName, READ_MODEL_FILES, removeOldGenerations, switchGeneration,
} from '../generation/pointer.js'

export interface CompactOptions {
  readonly store: EventStore
  readonly blobs: Pick<BlobStore, 'sweep'>
  readonly dataDir: string
  /**
   * Images younger than this are kept even when no event names them yet (a request stores its
   * images before it appends the event that names them), and images set aside wait this long
   * before they are deleted. Default one hour.
   */
  readonly graceMs?: number
  /** Counts what would go, and removes nothing. */
  readonly dryRun?: boolean
  /** A read model with at least this share of free pages is written again without them. Default 0.1. */
  readonly freeShare?: number
  readonly now?: () => number
}

export interface CompactReport {
  /** Images no event names: set aside now, deleted after a grace aside, put back when named after all. */
  readonly images: SweepReport
  /** The read model: its free pages before, and whether it was written again without them. */
  readonly readModel: { readonly path: string; readonly freePages: number; readonly pages: number; readonly rewritten: boolean }
}

/**
 * `waybill compact` (docs/operations.md#compact): gives back the space nothing needs, safely while
 * the service runs. Images that no stored event names (a request refused after it stored its images,
 * or one whose order was erased) are set aside once older than the grace, and deleted when a later
 * compact, a grace on, finds them still unnamed (BlobStore.sweep). A read model with many free
 * pages (after rows changed or were scrubbed) is copied without them (`VACUUM INTO`, a consistent
 * snapshot with its checkpoint) into a new generation, which readers and the projector switch to,
 * as after a rebuild; the projector then goes on from that copy's checkpoint. The event log and the
 * audit log only ever grow, and have no free pages to give.
 */
export async function compact(options: CompactOptions): Promise<CompactReport> {
  const named = await namedImages(options.store)
  const images = await options.blobs.sweep((sha256) => named.has(sha256), {
    graceMs: options.graceMs ?? 60 * 60 * 1000,
    ...(options.now === undefined ? {} : { now: options.now }),
    dryRun: options.dryRun === true,
  })
  return { images, readModel: compactReadModel(options.dataDir, options.freeShare ?? 0.1, options.dryRun === true) }
}

/**
 * The blobs the log names: every completion's proof of delivery and signature, as stored, except
 * those of orders whose personal data was erased since (their images went with it).
 */
async function namedImages(store: EventStore): Promise<Set<string>> {
  const byStream = new Map<string, string[]>()
  await eachBatch(store, { categories: [ORDER_CATEGORY], batch: 10_000 }, (batch) => {
    for (const event of batch) {
      if (event.type === 'PersonalDataErased') byStream.delete(event.streamName)
      const named = imagesNamedBy(event.data)
      if (named.length > 0) byStream.set(event.streamName, [...byStream.get(event.streamName) ?? [], ...named])
    }
  })
  return new Set([...byStream.values()].flat())
}

function compactReadModel(dataDir: string, freeShare: number, dryRun: boolean): CompactReport['readModel'] {
  const current = currentGeneration(dataDir, READ_MODEL_FILES)
  if (statSync(current.path, { throwIfNoEntry: false }) === undefined) return { path: current.path, freePages: 0, pages: 0, rewritten: false }
  const db = new Sqlite(current.path, { fileMustExist: true })
  try {
    db.pragma('busy_timeout = 5000')
    const pages = db.pragma('page_count', { simple: true }) as number
    const freePages = db.pragma('freelist_count', { simple: true }) as number
    if (dryRun || pages === 0 || freePages / pages < freeShare) return { path: current.path, freePages, pages, rewritten: false }
    for (let attempt = 1; ; attempt += 1) {
      const fileName = newGenerationName(READ_MODEL_FILES)
      const path = join(dataDir, fileName)
      db.prepare('VACUUM INTO ?').run(path)
      const copy = new Sqlite(path, { fileMustExist: true })
      copy.pragma('journal_mode = WAL')
      copy.close()
      fsyncPath(path)
      // The switch happens while no projector can write the live file, and only when the copy
      // holds everything the live file holds: readers never see the read model step back. A
      // projector that wrote a batch after the copy began costs another copy.
      db.prepare('BEGIN IMMEDIATE').run()
      try {
        if (checkpointsOf(db) === checkpointsOf(path)) {
          switchGeneration(dataDir, READ_MODEL_FILES, fileName)
          removeOldGenerations(dataDir, READ_MODEL_FILES, [fileName, basename(current.path)])
          return { path, freePages, pages, rewritten: true }
        }
      } finally {
        db.prepare('ROLLBACK').run()
      }
      rmSync(path, { force: true })
      if (attempt === COPY_ATTEMPTS) throw new Error(`the read model changed during each of ${COPY_ATTEMPTS} copies; compact again when the projector is less busy`)
    }
  } finally {
    db.close()
  }
}

/** Copies of a read model that a busy projector outran, before compact gives up. */
const COPY_ATTEMPTS = 5

function checkpointsOf(source: Database | string): string {
  const db = typeof source === 'string' ? new Sqlite(source, { readonly: true, fileMustExist: true }) : source
  try {
    return JSON.stringify(db.prepare('SELECT projection, commit_position, prepare_position FROM checkpoints ORDER BY projection').all())
  } finally {
    if (typeof source === 'string') db.close()
  }
}
