import { reapplyErasures } from '@waybill/projector'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { SignedTreeHead } from '@waybill/merkle'
import { AuditLog, HEADS_FILE, HeadStore, ReadModel, rebuildAuditLog, rebuildReadModel, verifyAuditLog, verifyOrders } from '@waybill/projector'
import type { WaybillConfig } from '../config.js'
import { tightenDataDir } from '../data-dir-modes.js'
import { openStore, type OpenedStore } from '../open-store.js'
import { writeDurably } from './durable-file.js'
import { LATEST_MANIFEST, manifestFile, readLatestManifest, sha256Of, type Manifest } from './manifest.js'
import { adoptLog, importLog, type RestoreCut, type RestoredLog } from './restore-log.js'

export type { RestoreCut } from './restore-log.js'

export interface RestoreReport {
  readonly ok: boolean
  /** What failed, each said so that an operator knows where to look. */
  readonly failures: readonly string[]
  readonly backup: { readonly sequence: number; readonly store: Manifest['store']; readonly position: string; readonly events: number; readonly started_at: string }
  readonly restored: RestoredLog
  /** Heads and key changes of the backup past the restored log's end (a cut): kept in the backup, not in the data dir. */
  readonly set_aside: { readonly heads: number; readonly first: SignedTreeHead | null; readonly keys: readonly string[] }
  readonly heads: { readonly kept: number; readonly current_key: string | null }
  /** PersonalDataErased events appended for erasures the key store recorded after the backup was taken. */
  readonly erasures_reapplied: number
}

/** How the restore opens the event store the configuration names (`openStore`; a test gives it a stand-in for a restored cluster). */
export type OpenLog = (config: WaybillConfig) => Promise<OpenedStore>

/**
 * `waybill restore DIR` (docs/operations.md#backup-and-restore) into an empty data directory:
 * the log up to the cut (positions, ids, hashes and times as they were), the images it names,
 * the heads file less what lies past the cut; then both projections rebuilt, and everything
 * checked: the manifests' chain and files, every hash chain, no gap, the read model against the
 * log, the rebuilt tree against every kept head and its key, every image's bytes. A backup of an
 * EventStoreDB deployment holds no events: the cluster, restored first by its own procedure, is
 * the log, and the restore brings back what Waybill adds to it around that log.
 */
export async function restoreBackup(dir: string, config: WaybillConfig, cut: RestoreCut,
  open: OpenLog = (c) => openStore(c, { writer: 'inline' })): Promise<RestoreReport> {
  const manifest = await readLatestManifest(dir)
  if (manifest === null) throw new Error(`no Waybill backup in ${dir} (no ${LATEST_MANIFEST})`)
  if (manifest.store === 'eventstoredb' && config.store !== 'eventstoredb') {
    throw new Error(`${dir} is a backup of an EventStoreDB deployment: its events are in the cluster's own backup. Restore the cluster by EventStoreDB's procedure, then run waybill restore with WAYBILL_STORE=eventstoredb (docs/operations.md#eventstoredb)`)
  }
  if (manifest.store === 'sqlite' && config.store !== 'sqlite') {
    throw new Error(`${dir} is a backup of the embedded store: it restores into the embedded store (WAYBILL_STORE=sqlite), where each event keeps the position it was recorded at`)
  }
  if (manifest.store === 'eventstoredb' && cut !== null) {
    throw new Error('--to-time and --to-position cut the log a backup holds, and a backup of EventStoreDB holds none: restore the cluster to the point you want by its own procedure, then this backup whole')
  }
  const entries = await readdir(config.dataDir).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw error
  })
  if (entries.length > 0) throw new Error(`${config.dataDir} (WAYBILL_DATA_DIR) is not empty: restore only into an empty data directory; nothing was changed`)
  if (cut !== null && 'position' in cut && cut.position > BigInt(manifest.log.position)) {
    throw new Error(`the backup holds the log up to position ${manifest.log.position}, not ${cut.position}`)
  }
  const failures = await manifestChainProblems(dir, manifest)
  const opened = await open(config)
  try {
    const restored = manifest.store === 'sqlite' ? await importLog(dir, manifest, cut, opened, failures) : await adoptLog(dir, manifest, opened, failures)
    const heads = await restoreHeads(dir, manifest, config.dataDir, restored.order_events, failures)
    try {
      await checkRestored(opened, config.dataDir, heads.store, manifest, restored, cut, failures)
      // Erasures made after this backup was taken: their keys are gone from the key store (which
      // no backup holds), and the restored log is told so too (docs/personal-data.md#after-an-erasure).
      const erasures = failures.length === 0 ? await reapplyErasures({ store: opened.store, keys: opened.keys }) : { appended: 0 }
      await tightenDataDir(config.dataDir)
      return {
        ok: failures.length === 0, failures, erasures_reapplied: erasures.appended,
        backup: { sequence: manifest.sequence, store: manifest.store, position: manifest.log.position, events: manifest.log.events, started_at: manifest.started_at },
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
async function checkRestored(opened: OpenedStore, dataDir: string, heads: HeadStore, manifest: Manifest, restored: RestoredLog,
  cut: RestoreCut, failures: string[]): Promise<void> {
  const { store } = opened
  // The whole of a backup that holds its events; a cluster restored by its own procedure may hold more or fewer.
  if (cut === null && manifest.store === 'sqlite' && (restored.position !== manifest.log.position || restored.events !== manifest.log.events)) {
    failures.push(`the restored log ends at position ${restored.position} with ${restored.events} events; the backup says ${manifest.log.position} and ${manifest.log.events}`)
  }
  const readModelBuilt = await rebuildReadModel({ store, keys: opened.keys, dataDir }).then(() => true, (error: unknown) => {
    failures.push(`the read model could not be built: ${(error as Error).message}`)
    return false
  })
  const auditLogBuilt = await rebuildAuditLog({ store, dataDir, heads }).then(() => true, (error: unknown) => {
    failures.push(`the audit log: ${(error as Error).message}`)
    return false
  })
  const gaps = await store.gaps?.()
  if (gaps !== undefined && gaps.missing > 0) failures.push(`the restored log has ${gaps.missing} gap(s), from position ${gaps.firstMissing.join(', ')}`)
  if (readModelBuilt) {
    const readModel = new ReadModel(dataDir)
    try {
      const orders = await verifyOrders({ store, keys: opened.keys, readModel })
      for (const broken of orders.brokenChains) failures.push(`stream ${broken.stream}: the hash chain breaks at revision ${broken.revision}: ${broken.reason}`)
      for (const mismatch of orders.mismatches) failures.push(`the read model's ${mismatch.account}/${mismatch.orderId} differs from the log (${mismatch.fields.join(', ')})`)
    } finally {
      readModel.close()
    }
  }
  // The log is checked against the heads whether or not an audit log could be built (one that disagrees with them is not kept).
  const auditLog = auditLogBuilt ? new AuditLog(dataDir, { create: false }) : null
  try {
    const latest = manifest.heads.latest
    const audit = await verifyAuditLog({
      store, blobs: opened.blobs, keys: heads.keys(), anchors: null, heads: heads.all(), seals: heads.seals(), witness: auditLog,
      // The backup's own word for its latest head, beside the heads file's: set aside when past the cut.
      ...(latest !== null && latest.tree_size <= restored.order_events ? { keptHead: latest } : {}),
    })
    for (const finding of audit.findings) failures.push(`${finding.kind}: ${finding.message}`)
  } finally {
    auditLog?.close()
  }
}
