import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { IMAGES, logOf, project, seedOrders } from './backup-fixture.js'
import { runWaybill } from '../src/testing.js'

const root = await mkdtemp(join(tmpdir(), 'waybill-backup-'))
t.teardown(() => rm(root, { recursive: true, force: true }))
const keyDir = join(root, 'audit-key')
const env = (dataDir: string, keys = keyDir) => ({
  WAYBILL_DATA_DIR: dataDir, WAYBILL_AUDIT_KEY_DIR: keys, WAYBILL_AUDIT_HEAD_EVERY_EVENTS: '2', WAYBILL_PROJECTOR_PORT: '0', LOG_LEVEL: 'warn',
})
const waybill = (dataDir: string, args: readonly string[], keys?: string) => runWaybill(args, { env: env(dataDir, keys) })

/** Every file under `dir`, with its bytes. */
async function filesOf(dir: string): Promise<Array<{ path: string; bytes: Buffer }>> {
  const found: Array<{ path: string; bytes: Buffer }> = []
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) found.push({ path: join(entry.parentPath, entry.name), bytes: await readFile(join(entry.parentPath, entry.name)) })
  }
  return found
}

/** `<data dir>/operations/backup.json`, what `waybill backup` leaves for /metrics. */
async function operationStatus(dataDir: string): Promise<{ operation: string; state: string; finished_at: string | null; last_success: { finished_at: string } | null }> {
  return JSON.parse(await readFile(join(dataDir, 'operations', 'backup.json'), 'utf8')) as Awaited<ReturnType<typeof operationStatus>>
}

t.test('a backup, then an incremental one; the restore holds every event and image, verifies itself, and serve refuses it without its key', async (t) => {
  const data = join(root, 'live')
  await seedOrders(data, ['B-1', 'B-2'], IMAGES[0])
  await project(env(data), 4)
  const dir = join(root, 'backups')
  const first = await waybill(data, ['backup', dir, '--json'])
  t.equal(first.code, 0, first.stderr)
  const manifest = JSON.parse(first.stdout) as { sequence: number; log: { position: string; events: number; order_events: number }; images: { total: number };
    heads: { latest: { tree_size: number } | null; count: number }; keys: Array<{ key_id: string }>; segments: unknown[]; waybill_version: string }
  t.match(manifest, { sequence: 1, log: { position: '4', events: 4, order_events: 4 }, images: { total: 1 }, waybill_version: /^\d+\.\d+\.\d+/ })
  t.equal(manifest.heads.latest?.tree_size, 4)
  t.equal(manifest.keys.length, 1)
  const files = await filesOf(dir)
  t.notOk(files.some((file) => file.bytes.includes('PRIVATE KEY')), 'no private key anywhere in the backup')
  t.notOk(files.some((file) => /read-model|audit-log\./.test(file.path)), 'no projection: a restore rebuilds them')

  await seedOrders(data, ['B-3'], IMAGES[0])
  await seedOrders(data, ['B-4'], IMAGES[1])
  await project(env(data), 8)
  const second = await waybill(data, ['backup', dir])
  t.equal(second.code, 0, second.stderr)
  t.match(second.stdout, /backup 2 of .* the log up to position 8 \(8 events, 8 order events, 2 images\)\n {2}added 4 events in 1 segment file\(s\) and 1 image\(s\)/, 'only what is new')
  // What /metrics reports as operation="backup" (the alert on a backup too old reads it).
  const recorded = await operationStatus(data)
  t.match(recorded, { operation: 'backup', state: 'succeeded', done: 4, total: 4, detail: /^backup 2 into .*: the log up to position 8; added 4 events and 1 image\(s\)/ })
  t.equal(recorded.last_success?.finished_at, recorded.finished_at)
  const third = await waybill(data, ['backup', dir])
  t.match(third.stdout, /added 0 events in 0 segment file\(s\) and 0 image\(s\)/, 'nothing new, nothing copied')
  const lastGood = await operationStatus(data)
  t.match(lastGood, { state: 'succeeded', detail: /^backup 3 into / })
  await writeFile(join(dir, '.backup-lock'), String(process.pid))
  const overlapping = await waybill(data, ['backup', dir])
  t.equal(overlapping.code, 1, 'a backup into a directory another backup is writing into is refused')
  t.match(overlapping.stderr, new RegExp(`another backup \\(pid ${process.pid}\\) is writing into`))
  t.match(await operationStatus(data), { state: 'failed', detail: /another backup/, last_success: { finished_at: lastGood.finished_at } }, 'a refused run is a failed one; the last success stays')
  await writeFile(join(dir, '.backup-lock'), '999999999')
  t.equal((await waybill(data, ['backup', dir])).code, 0, 'the lock of a process that is gone is taken over')
  t.notOk(existsSync(join(dir, '.backup-lock')), 'and let go')

  const restored = join(root, 'restored')
  const lostKey = join(root, 'no-key-here')
  const restore = await waybill(restored, ['restore', dir], lostKey)
  t.equal(restore.code, 0, restore.stdout + restore.stderr)
  t.match(restore.stdout, /the log up to position 8 \(8 of the backup's 8 events, 8 order events, .*\), 2 image\(s\)[\s\S]*restore: OK/)
  t.same(await logOf(restored), await logOf(data), 'every event as it was recorded: ids, hashes, positions, times')
  for (const image of IMAGES) t.same(await readFile(join(restored, 'blobs', image.sha256.slice(0, 2), image.sha256.slice(2))), image.bytes)
  t.equal((await waybill(restored, ['verify'], lostKey)).code, 0, 'waybill verify passes')
  const audit = await waybill(restored, ['audit', 'verify'], lostKey)
  t.equal(audit.code, 0, `waybill audit verify passes with the backed-up public keys, no private key:\n${audit.stdout}`)
  t.notOk(existsSync(lostKey))
  const serve = await waybill(restored, ['serve'], lostKey)
  t.equal(serve.code, 1, 'the restored data dir does not start signing with a key its heads do not name')
  t.match(serve.stderr, /restore the key directory .* or, if that key is lost, run `waybill audit rotate-key --old-key-lost`/)

  const again = await waybill(restored, ['restore', dir], lostKey)
  t.equal(again.code, 1)
  t.match(again.stderr, /is not empty: restore only into an empty data directory; nothing was changed/)
  const other = join(root, 'other-log')
  await seedOrders(other, ['X-1'])
  const mixed = await waybill(other, ['backup', dir])
  t.equal(mixed.code, 1)
  t.match(mixed.stderr, /before .*last backup \(8\): that is a backup of another log/)
  t.match(await operationStatus(other), { operation: 'backup', state: 'failed', detail: /that is a backup of another log/, last_success: null })
  await seedOrders(other, Array.from({ length: 8 }, (_, i) => `Y-${i}`))
  t.match((await waybill(other, ['backup', dir])).stderr, /the event at position 8 is not the one .* holds: that is a backup of another log/)
})

t.test('--to-time restores exactly the events written up to that time, --to-position up to that position; heads and key changes past them are set aside', async (t) => {
  const data = join(root, 'timed')
  const keys = join(root, 'timed-key')
  await seedOrders(data, ['T-1', 'T-2'])
  await project(env(data, keys), 2)
  await new Promise((resolve) => setTimeout(resolve, 20))
  await seedOrders(data, ['T-3', 'T-4'], IMAGES[1])
  await project(env(data, keys), 6)
  t.equal((await waybill(data, ['audit', 'rotate-key'], keys)).code, 0)
  await new Promise((resolve) => setTimeout(resolve, 20))
  await seedOrders(data, ['T-5', 'T-6'])
  await project(env(data, keys), 8)
  const dir = join(root, 'timed-backup')
  t.equal((await waybill(data, ['backup', dir], keys)).code, 0)
  const log = await logOf(data)
  // The last event of the second group: each group was written 20 ms after the one before.
  const cut = log[5]!
  t.ok(log[6]!.createdAt.getTime() > cut.createdAt.getTime(), 'the groups were written at different times')
  const byTime = join(root, 'by-time')
  const timed = await waybill(byTime, ['restore', dir, '--to-time', cut.createdAt.toISOString(), '--json'], keys)
  t.equal(timed.code, 0, timed.stdout)
  const report = JSON.parse(timed.stdout) as { restored: { events: number; position: string }; set_aside: { heads: number; keys: string[] }; heads: { current_key: string } }
  t.same(await logOf(byTime), log.filter((event) => event.createdAt.getTime() <= cut.createdAt.getTime()), 'exactly the events written up to that time')
  t.equal(report.restored.events, 6)
  t.ok(report.set_aside.heads > 0, 'heads past the restored log are set aside')
  t.same(report.set_aside.keys, [], 'the rotation was at tree size 6, inside the restored log')
  t.equal((await waybill(byTime, ['audit', 'verify'], keys)).code, 0)
  t.equal((await waybill(byTime, ['verify'], keys)).code, 0)

  const byPosition = join(root, 'by-position')
  const positioned = await waybill(byPosition, ['restore', dir, '--to-position', '3', '--json'], keys)
  t.equal(positioned.code, 0, positioned.stdout)
  const early = JSON.parse(positioned.stdout) as typeof report
  t.same((await logOf(byPosition)).map((event) => event.id), log.slice(0, 3).map((event) => event.id))
  t.equal(early.set_aside.keys.length, 1, 'a key change made after the restored log is set aside')
  t.not(early.heads.current_key, report.heads.current_key, 'and the key before it is current again')
  t.equal((await waybill(byPosition, ['audit', 'verify'], keys)).code, 0)
  t.equal((await waybill(join(root, 'too-far'), ['restore', dir, '--to-position', '99'], keys)).code, 1)
})

t.test('a damaged backup fails its restore, naming what', async (t) => {
  const data = join(root, 'damaged-source')
  await seedOrders(data, ['D-1'], IMAGES[0])
  await project(env(data), 2)
  const dir = join(root, 'damaged')
  t.equal((await waybill(data, ['backup', dir])).code, 0)
  await rm(join(dir, 'blobs', IMAGES[0]!.sha256.slice(0, 2), IMAGES[0]!.sha256.slice(2)))
  const noImage = await waybill(join(root, 'from-damaged-1'), ['restore', dir])
  t.equal(noImage.code, 1)
  t.match(noImage.stdout, new RegExp(`FAILED: image ${IMAGES[0]!.sha256} of order-sandbox-D-1 revision 1 is missing from the backup[\\s\\S]*restore: FAILED`))
  const [segment] = await readdir(join(dir, 'events'))
  await writeFile(join(dir, 'events', segment!), 'not a segment')
  const badSegment = await waybill(join(root, 'from-damaged-2'), ['restore', dir])
  t.equal(badSegment.code, 1)
  t.match(badSegment.stderr, /events\/0+1-0+2\.jsonl\.gz has changed since it was backed up/)
})

t.test('usage and refusals', async (t) => {
  const data = join(root, 'usage')
  await mkdir(data)
  t.equal((await waybill(data, ['backup'])).code, 2)
  t.equal((await waybill(data, ['backup', join(data, 'inside')])).code, 2)
  t.match((await waybill(data, ['backup', join(root, 'x')])).stderr, /no event store at/)
  t.equal((await waybill(data, ['restore', root, '--to-time', 'yesterday'])).code, 2)
  t.equal((await waybill(data, ['restore', root, '--to-position', '0'])).code, 2)
  t.equal((await waybill(data, ['restore', root, '--to-position', '2', '--to-time', '2026-01-01T00:00:00Z'])).code, 2)
  t.match((await waybill(join(root, 'fresh'), ['restore', root])).stderr, /no Waybill backup in/)
})
