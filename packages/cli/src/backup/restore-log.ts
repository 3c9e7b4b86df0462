import { join } from 'node:path'
import { ORDER_CATEGORY } from '@waybill/domain'
import { categoryOf, openFileBlobStore, type BlobStore, type Position, type RecordedEvent } from '@waybill/event-store'
import { imagesNamedBy } from '@waybill/projector'
import type { OpenedStore } from '../open-store.js'
import { concurrently } from './concurrently.js'
import { eventAt } from './event-at.js'
import type { Manifest } from './manifest.js'
import { readSegment } from './segments.js'

/** Where a restore stops: after this position, or before the first event the store wrote after this time. */
export type RestoreCut = { readonly position: bigint } | { readonly time: Date } | null

/** The log a restore ends with. */
export interface RestoredLog {
  readonly position: string
  readonly events: number
  readonly order_events: number
  readonly images: number
  /** When the store wrote the last restored event. */
  readonly last_written_at: string | null
}

const IMPORT_BATCH = 5_000
/** Images copied at once (a write and an fsync each). */
const IMAGE_COPIES = 8

/** The images a restore has copied from the backup into the data directory, and those it could not. */
class ImageCopier {
  readonly copied = new Set<string>()
  orderEvents = 0

  constructor(private readonly from: Pick<BlobStore, 'read'>, private readonly to: Pick<BlobStore, 'put'>, private readonly failures: string[],
    private readonly missingHint: string) {}

  /** Copies the images `events` name that are not copied yet; counts their order events. */
  async copyNamedBy(events: readonly RecordedEvent[]): Promise<void> {
    const named = new Map<string, RecordedEvent>()
    for (const event of events) {
      if (categoryOf(event.streamName) !== ORDER_CATEGORY) continue
      this.orderEvents += 1
      for (const sha256 of imagesNamedBy(event.data)) if (!this.copied.has(sha256)) named.set(sha256, event)
    }
    await concurrently(named, IMAGE_COPIES, async ([sha256, event]) => {
      this.copied.add(sha256)
      const read = await this.from.read(sha256)
      if (read.status === 'ok') await this.to.put(Buffer.concat(read.chunks, read.size), sha256)
      else this.failures.push(`image ${sha256} of ${event.streamName} revision ${event.revision} is ${read.status === 'missing' ? `missing from the backup${this.missingHint}` : 'not what its event recorded, in the backup'}`)
    })
  }

  result(events: number, last: RecordedEvent | null): RestoredLog {
    return {
      position: last === null ? '0' : String(last.position.commit), events, order_events: this.orderEvents, images: this.copied.size,
      last_written_at: last?.createdAt.toISOString() ?? null,
    }
  }
}

/** The log up to the cut, imported from the backup's segments as recorded, and the images its order events name. */
export async function importLog(dir: string, manifest: Manifest, cut: RestoreCut, opened: OpenedStore, failures: string[]): Promise<RestoredLog> {
  const { store } = opened
  if (store.importRecorded === undefined) throw new Error('this event store cannot import recorded events')
  const images = new ImageCopier(await openFileBlobStore(join(dir, 'blobs')), opened.blobs, failures, '')
  let events = 0
  let last: RecordedEvent | null = null
  const within = (event: RecordedEvent): boolean => cut === null ? true
    : 'position' in cut ? event.position.commit <= cut.position : event.createdAt.getTime() <= cut.time.getTime()
  for (const segment of manifest.segments) {
    const all = await readSegment(dir, segment)
    // A prefix of the log: the first event past the cut ends it (a clock that stepped back leaves no hole).
    const firstOut = all.findIndex((event) => !within(event))
    const batch = firstOut === -1 ? all : all.slice(0, firstOut)
    for (let i = 0; i < batch.length; i += IMPORT_BATCH) await store.importRecorded(batch.slice(i, i + IMPORT_BATCH))
    await images.copyNamedBy(batch)
    events += batch.length
    last = batch.at(-1) ?? last
    if (firstOut !== -1) break
  }
  return images.result(events, last)
}

/**
 * An EventStoreDB backup holds no events: the log is the cluster's, restored by EventStoreDB's own
 * procedure before this. Reads it whole, copies the images it names from the backup, and checks
 * that it is the log the backup was taken of (the event at the backup's position, when the
 * cluster holds it, has the hash the backup recorded). A cluster backed up after `waybill backup`
 * may hold events whose images the backup lacks: each is named.
 */
export async function adoptLog(dir: string, manifest: Manifest, opened: OpenedStore, failures: string[]): Promise<RestoredLog> {
  const { store } = opened
  const images = new ImageCopier(await openFileBlobStore(join(dir, 'blobs')), opened.blobs, failures,
    ' (was the cluster backed up after `waybill backup`? Back it up first, then run `waybill backup`)')
  if (manifest.log.last_hash !== null) {
    const marker = await eventAt(store, manifest.log.position)
    if (marker !== null && marker.hash !== manifest.log.last_hash) {
      failures.push(`the cluster's event at position ${manifest.log.position} is not the one the backup recorded: this backup is of another log`)
    }
  }
  let events = 0
  let last: RecordedEvent | null = null
  let after: Position | null = null
  for (;;) {
    const batch = await store.readAll({ after, maxCount: IMPORT_BATCH })
    const tail = batch.at(-1)
    if (tail === undefined) break
    await images.copyNamedBy(batch)
    events += batch.length
    last = tail
    after = tail.position
  }
  return images.result(events, last)
}
