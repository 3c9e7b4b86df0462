import { randomUUID } from 'node:crypto'
import { mkdir, readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { ORDER_CATEGORY } from '@waybill/domain'
import {
  categoryOf, comparePositions, openFileBlobStore, positionToString, type BlobStore, type EventStore, type Position, type RecordedEvent,
} from '@waybill/event-store'
import { auditKeyDocument, HeadStore, imagesNamedBy } from '@waybill/projector'
import { lockBackupDir } from './backup-lock.js'
import { concurrently } from './concurrently.js'
import { eventAt } from './event-at.js'
import { writeDurably } from './durable-file.js'
import {
  BACKUP_FORMAT, LATEST_MANIFEST, manifestFile, readLatestManifest, sha256Of, waybillVersion, type Manifest, type SegmentEntry,
} from './manifest.js'
import { writeSegment } from './segments.js'

/** Events read from the log per call, and at most per segment file. */
const READ_BATCH = 5_000
const SEGMENT_EVENTS = 50_000
/** Images copied at once. */
const IMAGE_COPIES = 8

export interface BackupOptions {
  /** The event store, open (serve may be writing to it from another process). */
  readonly store: EventStore
  /**
   * `sqlite`: the embedded store, whose events the backup copies. `eventstoredb`: the cluster is
   * backed up by EventStoreDB's own procedure, and the backup holds what Waybill adds to it (the
   * heads, the public keys and the images the log names), read the same way but with no events.
   */
  readonly storeKind: Manifest['store']
  /** The data directory's images. */
  readonly blobs: Pick<BlobStore, 'read'>
  readonly dataDir: string
  /** The backup directory: made when absent; a backup already there is continued. */
  readonly dir: string
  /** After each batch read: how far into the log positions this backup covers it is, of how far. */
  readonly onProgress?: (done: number, total: number) => void
}

export interface BackupResult {
  readonly manifest: Manifest
  /** What this backup added to the directory. */
  readonly added: { readonly events: number; readonly segments: number; readonly images: number }
}

/**
 * `waybill backup DIR` (docs/operations.md#backup-and-restore), online: first a copy of the heads
 * file by SQLite's online backup API (so every head in it covers events already in the log),
 * then the log's head position, then the events after the directory's last backup up to that
 * position, read through the store in position order (positions are dense and commit in order:
 * every event up to a head position that can be read is already committed), then the images they
 * name that the directory lacks, each checked against its name, then the manifest, last. Never
 * the private signing key, nor the projections, which a restore rebuilds. On EventStoreDB the
 * same, less the events themselves.
 */
export async function takeBackup(options: BackupOptions): Promise<BackupResult> {
  const { dir, store } = options
  await mkdir(join(dir, 'events'), { recursive: true, mode: 0o700 })
  await mkdir(join(dir, 'manifests'), { mode: 0o700, recursive: true })
  await mkdir(join(dir, 'heads'), { mode: 0o700, recursive: true })
  const unlock = await lockBackupDir(dir)
  try {
    return await backupInto(options, dir, store)
  } finally {
    await unlock()
  }
}

async function backupInto(options: BackupOptions, dir: string, store: EventStore): Promise<BackupResult> {
  const previous = await readLatestManifest(dir)
  const sequence = (previous?.sequence ?? 0) + 1
  const startedAt = new Date()

  const heads = await snapshotHeads(options.dataDir, dir, sequence)
  const head = await store.headPosition()
  const from = await resumeFrom(store, previous, head, dir)

  const target = await openFileBlobStore(join(dir, 'blobs'))
  const segments: SegmentEntry[] = []
  let events = 0
  let orderEvents = 0
  let images = 0
  let lastHash = previous?.log.last_hash ?? null
  let pending: RecordedEvent[] = []
  const flush = async (): Promise<void> => {
    if (pending.length === 0) return
    segments.push(await writeSegment(dir, pending))
    pending = []
  }
  const copiesEvents = options.storeKind === 'sqlite'
  const start = from?.commit ?? 0n
  for (let after: Position | null = from; head !== null && (after === null || comparePositions(after, head) < 0);) {
    const batch = (await store.readAll({ after, maxCount: READ_BATCH })).filter((event) => comparePositions(event.position, head) <= 0)
    const last = batch.at(-1)
    if (last === undefined) throw new Error(`the log ends before position ${head.commit}, which it said was its head`)
    // The images this batch names, each once, copied a few at a time (a write and an fsync each).
    const named = new Map<string, RecordedEvent>()
    for (const event of batch) {
      if (categoryOf(event.streamName) !== ORDER_CATEGORY) continue
      orderEvents += 1
      for (const sha256 of imagesNamedBy(event.data)) if (!named.has(sha256)) named.set(sha256, event)
    }
    await concurrently(named, IMAGE_COPIES, async ([sha256, event]) => { if (await copyImage(options.blobs, target, sha256, event)) images += 1 })
    if (copiesEvents) pending.push(...batch)
    events += batch.length
    lastHash = last.hash
    after = last.position
    options.onProgress?.(Number(after.commit - start), Number(head.commit - start))
    if (pending.length >= SEGMENT_EVENTS) await flush()
  }
  await flush()

  const manifest: Manifest = {
    format: BACKUP_FORMAT, sequence, waybill_version: waybillVersion(), started_at: startedAt.toISOString(), finished_at: new Date().toISOString(),
    store: options.storeKind,
    log: {
      position: head === null ? '0' : copiesEvents ? String(head.commit) : positionToString(head), events: (previous?.log.events ?? 0) + events, order_events: (previous?.log.order_events ?? 0) + orderEvents,
      last_hash: lastHash,
    },
    previous: previous === null ? null : { sequence: previous.sequence, sha256: sha256Of(await readFile(join(dir, manifestFile(previous.sequence)))) },
    segments: [...previous?.segments ?? [], ...segments],
    images: { total: (previous?.images.total ?? 0) + images, added: images },
    heads: heads.entry,
    keys: heads.keys,
  }
  const text = `${JSON.stringify(manifest, null, 2)}\n`
  await writeDurably(join(dir, manifestFile(sequence)), text)
  await writeDurably(join(dir, LATEST_MANIFEST), text)
  return { manifest, added: { events, segments: segments.length, images } }
}

/**
 * Where this backup starts: after the directory's last one, when it is a backup of this log (the
 * event at its last position has the hash it recorded); from the start for a new directory.
 */
async function resumeFrom(store: EventStore, previous: Manifest | null, head: Position | null, dir: string): Promise<Position | null> {
  if (previous === null || previous.log.last_hash === null) return null
  const last = previous.log.position
  const event = await eventAt(store, last)
  if (event === null && (head === null || head.commit < BigInt(last.split('/')[0] ?? last))) {
    throw new Error(`the log ends at position ${head?.commit ?? 0n}, before ${dir}'s last backup (${last}): that is a backup of another log, or this log lost events; back up into a new directory`)
  }
  if (event?.hash !== previous.log.last_hash) {
    throw new Error(`the event at position ${last} is not the one ${dir}'s last backup holds: that is a backup of another log; back up into a new directory`)
  }
  return event.position
}

/** The heads file as it is now, by SQLite's online backup API, to `heads/<sequence>.sqlite` in the backup. */
async function snapshotHeads(dataDir: string, dir: string, sequence: number): Promise<{ entry: Manifest['heads']; keys: Manifest['keys'] }> {
  const file = join('heads', `${String(sequence).padStart(6, '0')}.sqlite`)
  const temporary = join(dir, 'heads', `.tmp-${randomUUID()}.sqlite`)
  try {
    const live = HeadStore.inDataDir(dataDir)
    try {
      await live.backupTo(temporary)
    } finally {
      live.close()
    }
    const copy = new HeadStore(temporary)
    let described
    try {
      described = { count: [...copy.all()].length, latest: copy.latest(), keys: copy.keys().map(auditKeyDocument) }
    } finally {
      copy.close()
    }
    const bytes = await readFile(temporary)
    await writeDurably(join(dir, file), bytes)
    return { entry: { file, sha256: sha256Of(bytes), count: described.count, latest: described.latest }, keys: described.keys }
  } finally {
    await rm(temporary, { force: true })
  }
}

/** Copies one image into the backup unless it is there; false when it was. Its bytes must be what its name says. */
async function copyImage(source: Pick<BlobStore, 'read'>, target: BlobStore, sha256: string, event: RecordedEvent): Promise<boolean> {
  if (await target.has(sha256)) return false
  const read = await source.read(sha256)
  if (read.status !== 'ok') {
    throw new Error(`image ${sha256} of ${event.streamName} revision ${event.revision} (position ${event.position.commit}) is ${read.status === 'missing' ? 'missing' : 'not what its event recorded'} in the data directory: nothing was backed up; run \`waybill audit verify\``)
  }
  await target.put(Buffer.concat(read.chunks, read.size), sha256)
  return true
}
