import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { ORDER_CATEGORY } from '@waybill/domain'
import { categoryOf, openFileBlobStore, type RecordedEvent } from '@waybill/event-store'
import type { SignedTreeHead } from '@waybill/merkle'
import {
  AuditLog, HEADS_FILE, HeadStore, imagesNamedBy, ReadModel, rebuildAuditLog, rebuildReadModel, verifyAuditLog, verifyOrders,
} from '@waybill/projector'
import type { WaybillConfig } from '../config.js'
import { tightenDataDir } from '../data-dir-modes.js'
import { openStore, type OpenedStore } from '../open-store.js'
import { concurrently } from './concurrently.js'
import { writeDurably } from './durable-file.js'
import { LATEST_MANIFEST, manifestFile, readLatestManifest, sha256Of, type Manifest } from './manifest.js'
import { readSegment } from './segments.js'

/** Where a restore stops: after this position, or before the first event the store wrote after this time. */
export type RestoreCut = { readonly position: bigint } | { readonly time: Date } | null

export interface RestoreReport {
  readonly ok: boolean
  /** What failed, each said so that an operator knows where to look. */
  readonly failures: readonly string[]
  readonly backup: { readonly sequence: number; readonly position: string; readonly events: number; readonly started_at: string }
  readonly restored: {
    readonly position: string
    readonly events: number
    readonly order_events: number
    readonly images: number
    /** When the store wrote the last restored event. */
    readonly last_written_at: string | null
  }
  /** Heads and key changes of the backup past the restored log's end (a cut): kept in the backup, not in the data dir. */
  readonly set_aside: { readonly heads: number; readonly first: SignedTreeHead | null; readonly keys: readonly string[] }
  readonly heads: { readonly kept: number; readonly current_key: string | null }
}

const IMPORT_BATCH = 5_000
/** Images copied at once (a write and an fsync each). */
const IMAGE_COPIES = 8

/**
 * `waybill restore DIR` (docs/operations.md#backup-and-restore) into an empty data directory:
 * the log up to the cut (positions, ids, hashes and times as they were), the images it names,
 * the heads file less what lies past the cut; then both projections rebuilt, and everything
 * checked: the manifests' chain and files, every hash chain, no gap, the read model against the
 * log, the rebuilt tree against every kept head and its key, every image's bytes.
 */
export async function restoreBackup(dir: string, config: WaybillConfig, cut: RestoreCut): Promise<RestoreReport> {
  if (config.store !== 'sqlite') throw new Error('waybill restore fills the embedded store (WAYBILL_STORE=sqlite); restore EventStoreDB with its own procedure (docs/operations.md#backup-and-restore)')
  const manifest = await readLatestManifest(dir)
  if (manifest === null) throw new Error(`no Waybill backup in ${dir} (no ${LATEST_MANIFEST})`)
  const entries = await readdir(config.dataDir).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw error
  })
  if (entries.length > 0) throw new Error(`${config.dataDir} (WAYBILL_DATA_DIR) is not empty: restore only into an empty data directory; nothing was changed`)
  if (cut !== null && 'position' in cut && cut.position > BigInt(manifest.log.position)) {
    throw new Error(`the backup holds the log up to position ${manifest.log.position}, not ${cut.position}`)
  }
  const failures = await manifestChainProblems(dir, manifest)
  const opened = await openStore(config, { writer: 'inline' })
  try {
    const restored = await importLog(dir, manifest, cut, opened, failures)
    const heads = await restoreHeads(dir, manifest, config.dataDir, restored.order_events, failures)
    try {
      await checkRestored(opened, config.dataDir, heads.store, manifest, restored, cut, failures)
      await tightenDataDir(config.dataDir)
      return {
        ok: failures.length === 0, failures,
        backup: { sequence: manifest.sequence, position: manifest.log.position, events: manifest.log.events, started_at: manifest.started_at },
        restored, set_aside: heads.setAside,
        heads: { kept: [...heads.store.all()].length, current_key: heads.store.currentKey()?.key_id ?? null },
      }
    } finally {
      heads.store.close()
    }
  } finally {
    await opened.close()
  }
}

/** Each manifest names the sha256 of the one before it; the latest is the last one kept. */
async function manifestChainProblems(dir: string, latest: Manifest): Promise<string[]> {
  const problems: string[] = []
  const read = (sequence: number) => readFile(join(dir, manifestFile(sequence))).catch(() => null)
  const own = await read(latest.sequence)
  if (own === null || JSON.stringify(JSON.parse(own.toString('utf8'))) !== JSON.stringify(latest)) problems.push(`${LATEST_MANIFEST} is not ${manifestFile(latest.sequence)}`)
  for (let previous = latest.previous; previous !== null;) {
    const { sequence, sha256 } = previous
    const bytes = await read(sequence)
    if (bytes === null || sha256Of(bytes) !== sha256) {
      problems.push(`${manifestFile(sequence)} is ${bytes === null ? 'missing' : 'not the manifest the next backup recorded'}`)
      break
    }
    previous = (JSON.parse(bytes.toString('utf8')) as Manifest).previous
  }
  return problems
}

/** The log up to the cut, imported as recorded, and the images its order events name. */
async function importLog(dir: string, manifest: Manifest, cut: RestoreCut, opened: OpenedStore, failures: string[]): Promise<RestoreReport['restored']> {
  const { store } = opened
  if (store.importRecorded === undefined) throw new Error('this event store cannot import recorded events')
  const images = await openFileBlobStore(join(dir, 'blobs'))
  const copied = new Set<string>()
  let events = 0
  let orderEvents = 0
  let last: RecordedEvent | null = null
  const within = (event: RecordedEvent): boolean => cut === null ? true
    : 'position' in cut ? event.position.commit <= cut.position : event.createdAt.getTime() <= cut.time.getTime()
  let done = false
  for (const segment of manifest.segments) {
    if (done) break
    const all = await readSegment(dir, segment)
    // A prefix of the log: the first event past the cut ends it (a clock that stepped back leaves no hole).
    const firstOut = all.findIndex((event) => !within(event))
    const batch = firstOut === -1 ? all : all.slice(0, firstOut)
    done = firstOut !== -1
    for (let i = 0; i < batch.length; i += IMPORT_BATCH) await store.importRecorded(batch.slice(i, i + IMPORT_BATCH))
    const named = new Map<string, RecordedEvent>()
    for (const event of batch) {
      if (categoryOf(event.streamName) !== ORDER_CATEGORY) continue
      orderEvents += 1
      for (const sha256 of imagesNamedBy(event.data)) if (!copied.has(sha256)) named.set(sha256, event)
    }
    await concurrently(named, IMAGE_COPIES, async ([sha256, event]) => {
      copied.add(sha256)
      const read = await images.read(sha256)
      if (read.status === 'ok') await opened.blobs.put(Buffer.concat(read.chunks, read.size), sha256)
      else failures.push(`image ${sha256} of ${event.streamName} revision ${event.revision} is ${read.status === 'missing' ? 'missing from the backup' : 'not what its event recorded, in the backup'}`)
    })
    events += batch.length
    last = batch.at(-1) ?? last
  }
  return {
    position: String(last?.position.commit ?? 0n), events, order_events: orderEvents, images: copied.size,
    last_written_at: last?.createdAt.toISOString() ?? null,
  }
}

/** The backup's heads file, checked against its manifest, less the heads and key changes past the restored log. */
async function restoreHeads(dir: string, manifest: Manifest, dataDir: string, orderEvents: number, failures: string[]) {
  const bytes = await readFile(join(dir, manifest.heads.file))
  if (sha256Of(bytes) !== manifest.heads.sha256) failures.push(`${manifest.heads.file} has changed since it was backed up`)
  await writeDurably(join(dataDir, HEADS_FILE), bytes)
  const store = HeadStore.inDataDir(dataDir)
  const forgotten = store.forgetAfter(orderEvents)
  return { store, setAside: { heads: forgotten.heads.length, first: forgotten.heads[0] ?? null, keys: forgotten.keys.map((key) => key.key_id) } }
}

/** Rebuilds both projections and checks the restored data directory as `verify` and `audit verify` do. */
async function checkRestored(opened: OpenedStore, dataDir: string, heads: HeadStore, manifest: Manifest, restored: RestoreReport['restored'],
  cut: RestoreCut, failures: string[]): Promise<void> {
  const { store } = opened
  if (cut === null && (restored.position !== manifest.log.position || restored.events !== manifest.log.events)) {
    failures.push(`the restored log ends at position ${restored.position} with ${restored.events} events; the backup says ${manifest.log.position} and ${manifest.log.events}`)
  }
  const readModelBuilt = await rebuildReadModel({ store, dataDir }).then(() => true, (error: unknown) => {
    failures.push(`the read model could not be built: ${(error as Error).message}`)
    return false
  })
  await rebuildAuditLog({ store, dataDir, heads }).catch((error: unknown) => { failures.push(`the audit log: ${(error as Error).message}`) })
  const gaps = await store.gaps?.()
  if (gaps !== undefined && gaps.missing > 0) failures.push(`the restored log has ${gaps.missing} gap(s), from position ${gaps.firstMissing.join(', ')}`)
  if (readModelBuilt) {
    const readModel = new ReadModel(dataDir)
    try {
      const orders = await verifyOrders({ store, readModel })
      for (const broken of orders.brokenChains) failures.push(`stream ${broken.stream}: the hash chain breaks at revision ${broken.revision}: ${broken.reason}`)
      for (const mismatch of orders.mismatches) failures.push(`the read model's ${mismatch.account}/${mismatch.orderId} differs from the log (${mismatch.fields.join(', ')})`)
    } finally {
      readModel.close()
    }
  }
  const auditLog = new AuditLog(dataDir, { create: false })
  try {
    const latest = manifest.heads.latest
    const audit = await verifyAuditLog({
      store, blobs: opened.blobs, keys: heads.keys(), anchors: null, heads: heads.all(), witness: auditLog,
      // The backup's own word for its latest head, beside the heads file's: set aside when past the cut.
      ...(latest !== null && latest.tree_size <= restored.order_events ? { keptHead: latest } : {}),
    })
    for (const finding of audit.findings) failures.push(`${finding.kind}: ${finding.message}`)
  } finally {
    auditLog.close()
  }
}
