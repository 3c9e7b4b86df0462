import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { deliveryImages } from '@waybill/domain'
import { buildStore, loadOrders } from '../../src/scale/build-store.js'
import { eventsIn } from '../../src/scale/disk-usage.js'
import { measureStores } from '../../src/scale/measure-store.js'
import { READS } from '../../src/scale/read-targets.js'
import { ACCOUNTS, deliveriesOf } from '../../src/scale/shape.js'

/** The photos orders 0 to `orders` − 1 carry. */
const photosOf = (orders: number): number => Array.from({ length: orders }, (_, n) => deliveriesOf(n).flatMap(deliveryImages).length).reduce((a, b) => a + b, 0)
/** The blobs in a blob store's directory. */
const blobCount = async (dir: string): Promise<number> => (await readdir(dir, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile()).length

// Keys made through `waybill keys create`, a server, `waybill verify` and `audit verify`: child
// processes, each a second or more on a busy machine.
t.setTimeout(240_000)

t.test('a load carries on after what it committed and is cut back to a chunk boundary; the built store passes verify and audit verify; every read, the ingest and the disk are measured on it', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'waybill-scale-test-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const lines: string[] = []
  const log = (line: string): void => { lines.push(line) }
  const dataDir = join(dir, 'data')
  const events = join(dataDir, 'events.sqlite')
  await mkdir(dataDir, { recursive: true })
  await loadOrders(dataDir, 30, { threads: 0, chunk: 10, log })
  t.equal(eventsIn(events), 120, 'four events per order')
  t.equal(await blobCount(join(dataDir, 'blobs')), photosOf(30), 'a sealed blob for each photo')
  await loadOrders(dataDir, 20, { threads: 0, chunk: 10, log })
  t.equal(eventsIn(events), 80, 'cut back to 20 orders')
  t.equal(await blobCount(join(dataDir, 'blobs')), photosOf(20), 'the photos of the orders cut off deleted')
  await t.rejects(loadOrders(dataDir, 15, { threads: 0, chunk: 10, log }), /cannot cut a load of 20 orders back to 15: not a multiple of 10/)
  await loadOrders(dataDir, 40, { threads: 1, chunk: 10, log })
  t.ok(lines.includes('resuming the load after 20 orders'))
  t.equal(eventsIn(events), 160, 'carried on to 40 orders, on a worker thread')
  t.equal(await blobCount(join(dataDir, 'blobs')), photosOf(40))

  const built = await buildStore(dir, 40, { threads: 1, chunk: 10, log })
  t.same(Object.keys(built.apiKeys), ACCOUNTS.map(([account]) => account), 'a key per account')
  t.equal(built.events, 160)
  t.equal((await buildStore(dir, 40, { threads: 1, log })).apiKeys.acme, built.apiKeys.acme)
  t.ok(lines.some((line) => line.startsWith('reusing the store built in')))
  await t.rejects(buildStore(dir, 50, { threads: 1, log }), /holds a store of 40 orders, not 50/)

  const [figures] = await measureStores([built], { requests: 20, rounds: 2, connections: 2, ingestSeconds: 1, ingestWarmupSeconds: 1, ingestConnections: 2, log })
  if (figures === undefined) throw new Error('one store measured, no figures')
  for (const read of READS) {
    const { requests, failed, p50Ms, p99Ms } = figures.reads[read]
    t.same({ read, requests, failed }, { read, requests: 20, failed: 0 }, `${read}: every request answered 200`)
    t.ok(p50Ms > 0 && p99Ms >= p50Ms, `${read}: p50 ${p50Ms} ms, p99 ${p99Ms} ms`)
  }
  t.ok(figures.events >= 160 + ACCOUNTS.length + 1, `${figures.events} events: the orders and the keys`)
  t.ok(figures.ingest.accepted > 0)
  t.equal(figures.ingest.failed, 0)
  t.ok((figures.ingest.cpuSeconds ?? 0) > 0, 'the server\'s CPU was read')
  t.ok(figures.eventsAfter >= figures.events + figures.ingest.accepted, 'every accepted ORDER_ADD stored')
  t.equal(figures.verify.code, 0, 'waybill verify accepts the built store')
  t.equal(figures.auditVerify.code, 0, 'waybill audit verify accepts its audit log')
  t.ok(figures.verify.cpuSeconds > 0 && figures.verify.wallSeconds > 0)
  t.ok(figures.startSeconds > 0 && figures.startSeconds < 60, `listening after ${figures.startSeconds} s`)
  t.ok(figures.bytesOnDisk > 160 * 1000, `${figures.bytesOnDisk} bytes on disk`)
})
