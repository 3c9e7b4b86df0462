import { copyFile, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { openFileBlobStore, openSqliteEventStore } from '@waybill/event-store'
import { IMAGES, logOf, project, seedOrders } from './backup-fixture.js'
import { restoreBackup, type OpenLog } from '../src/backup/restore-backup.js'
import { takeBackup } from '../src/backup/take-backup.js'
import { loadConfig } from '../src/config.js'
import { openStore } from '../src/open-store.js'
import { runWaybill } from '../src/testing.js'

/*
 * A deployment on EventStoreDB backs the cluster up by EventStoreDB's own procedure, and
 * `waybill backup` takes what Waybill adds. No EventStoreDB server runs here: the log is an
 * embedded store on disk, read through the same port, and "the cluster's backup" is a copy of
 * its file taken while nothing writes; the restored cluster is that copy put back.
 */
const root = await mkdtemp(join(tmpdir(), 'waybill-backup-esdb-'))
t.teardown(() => rm(root, { recursive: true, force: true }))
const keyDir = join(root, 'audit-key')
const env = (dataDir: string, store = 'sqlite') => ({
  WAYBILL_DATA_DIR: dataDir, WAYBILL_AUDIT_KEY_DIR: keyDir, WAYBILL_AUDIT_HEAD_EVERY_EVENTS: '2', WAYBILL_PROJECTOR_PORT: '0', LOG_LEVEL: 'warn',
  WAYBILL_STORE: store, ...(store === 'eventstoredb' ? { EVENTSTORE_CONNECTION_STRING: 'esdb://localhost:2113' } : {}),
})

/** `waybill backup` as on EventStoreDB: the heads, keys and images around the log, no events. */
async function backupAround(dataDir: string, dir: string) {
  const store = await openSqliteEventStore({ path: join(dataDir, 'events.sqlite'), writer: 'inline' })
  try {
    return await takeBackup({ store, storeKind: 'eventstoredb', blobs: await openFileBlobStore(join(dataDir, 'blobs')), dataDir, dir })
  } finally {
    await store.close()
  }
}

/** The cluster's own backup: the log's file (and its write-ahead log, if any), copied while nothing writes to it. */
async function clusterBackup(dataDir: string, name: string): Promise<string> {
  const copy = join(root, `${name}.sqlite`)
  await copyFile(join(dataDir, 'events.sqlite'), copy)
  if (existsSync(join(dataDir, 'events.sqlite-wal'))) await copyFile(join(dataDir, 'events.sqlite-wal'), `${copy}-wal`)
  return copy
}

/** The cluster restored from `copy` by its own procedure, then opened as `waybill restore` opens the store. */
const restoredCluster = (copy: string): OpenLog => async (config) => {
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 })
  await copyFile(copy, join(config.dataDir, 'events.sqlite'))
  if (existsSync(`${copy}-wal`)) await copyFile(`${copy}-wal`, join(config.dataDir, 'events.sqlite-wal'))
  return openStore({ ...config, store: 'sqlite' }, { writer: 'inline' })
}

const configFor = (dataDir: string) => loadConfig(env(dataDir, 'eventstoredb'))

t.test('the cluster first, then `waybill backup`: the restore sets aside the heads past the cluster\'s log, holds every image it names, and verifies', async (t) => {
  const live = join(root, 'live')
  await seedOrders(live, ['E-1', 'E-2'], IMAGES[0])
  await project(env(live), 4)
  const cluster = await clusterBackup(live, 'cluster-1')
  await seedOrders(live, ['E-3'], IMAGES[1])
  await project(env(live), 6)

  const dir = join(root, 'esdb-backup')
  const { manifest, added } = await backupAround(live, dir)
  t.match(manifest, { store: 'eventstoredb', sequence: 1, log: { position: '6/6', events: 6, order_events: 6 }, segments: [], images: { total: 2 } })
  t.equal(manifest.heads.latest?.tree_size, 6)
  t.same(added, { events: 6, segments: 0, images: 2 }, 'read 6 events, copied none of them, and both images')
  t.notOk(existsSync(join(dir, 'events')) && (await readdir(join(dir, 'events'))).length > 0, 'no event in the backup')

  const restored = join(root, 'restored')
  const report = await restoreBackup(dir, configFor(restored), null, restoredCluster(cluster))
  t.ok(report.ok, report.failures.join('\n'))
  t.match(report, { backup: { store: 'eventstoredb', events: 6 }, restored: { events: 4, order_events: 4, images: 1 } })
  t.ok(report.set_aside.heads > 0 && report.set_aside.first !== null && report.set_aside.first.tree_size > 4, 'the heads over events the cluster\'s backup lacks are set aside')
  t.same(await logOf(restored), (await logOf(live)).slice(0, 4), 'the log is the cluster\'s')
  const restoredEnv = env(restored)
  t.equal((await runWaybill(['verify'], { env: restoredEnv })).code, 0, 'waybill verify')
  const audit = await runWaybill(['audit', 'verify'], { env: restoredEnv })
  t.equal(audit.code, 0, `waybill audit verify, every image included:\n${audit.stdout}`)

  // Incremental: only the images the directory lacks.
  await seedOrders(live, ['E-4'], IMAGES[1])
  await project(env(live), 8)
  const next = await backupAround(live, dir)
  t.match(next.manifest, { sequence: 2, log: { position: '8/8', events: 8 }, images: { total: 2 } })
  t.same(next.added, { events: 2, segments: 0, images: 0 })
})

t.test('a cluster backed up after `waybill backup` holds events whose images the backup lacks: the restore names each', async (t) => {
  const live = join(root, 'late')
  await seedOrders(live, ['L-1'], IMAGES[0])
  await project(env(live), 2)
  const dir = join(root, 'late-backup')
  await backupAround(live, dir)
  await seedOrders(live, ['L-2'], IMAGES[1])
  const cluster = await clusterBackup(live, 'cluster-late')
  const report = await restoreBackup(dir, configFor(join(root, 'late-restored')), null, restoredCluster(cluster))
  t.notOk(report.ok)
  const missing = new RegExp(`^image ${IMAGES[1]!.sha256} of order-sandbox-L-2 revision 1 is missing from the backup \\(was the cluster backed up after \`waybill backup\`\\? Back it up first`)
  t.ok(report.failures.some((failure) => missing.test(failure)), report.failures.join('\n'))

  const other = join(root, 'other')
  await seedOrders(other, ['O-1', 'O-2'])
  const report2 = await restoreBackup(dir, configFor(join(root, 'other-restored')), null, restoredCluster(await clusterBackup(other, 'cluster-other')))
  t.notOk(report2.ok)
  t.ok(report2.failures.includes('the cluster\'s event at position 2/2 is not the one the backup recorded: this backup is of another log'), report2.failures.join('\n'))
})

t.test('a backup restores only into the store it was taken of, and an EventStoreDB one is never cut', async (t) => {
  const esdbDir = join(root, 'esdb-backup')
  const intoSqlite = await runWaybill(['restore', esdbDir], { env: env(join(root, 'mixed-1')) })
  t.equal(intoSqlite.code, 1)
  t.match(intoSqlite.stderr, /is a backup of an EventStoreDB deployment: its events are in the cluster's own backup\. Restore the cluster by EventStoreDB's procedure, then run waybill restore with WAYBILL_STORE=eventstoredb/)
  const cut = await runWaybill(['restore', esdbDir, '--to-time', '2026-01-01T00:00:00Z'], { env: env(join(root, 'mixed-2'), 'eventstoredb') })
  t.equal(cut.code, 1)
  t.match(cut.stderr, /a backup of EventStoreDB holds none: restore the cluster to the point you want by its own procedure/)

  const data = join(root, 'embedded')
  await seedOrders(data, ['S-1'])
  const sqliteDir = join(root, 'embedded-backup')
  t.equal((await runWaybill(['backup', sqliteDir], { env: env(data) })).code, 0)
  const intoCluster = await runWaybill(['restore', sqliteDir], { env: env(join(root, 'mixed-3'), 'eventstoredb') })
  t.equal(intoCluster.code, 1)
  t.match(intoCluster.stderr, /is a backup of the embedded store: it restores into the embedded store \(WAYBILL_STORE=sqlite\)/)
  t.notOk(existsSync(join(root, 'mixed-1')) || existsSync(join(root, 'mixed-2')) || existsSync(join(root, 'mixed-3')), 'nothing was made')
})
