import { createHash } from 'node:crypto'
import { basename, join } from 'node:path'
import Sqlite from 'better-sqlite3'
import t from 'tap'
import { openFileBlobStore } from '@waybill/event-store'
import { compact, ReadModel, startProjector, verifyOrders } from '../../src/index.js'
import { command, openStore, randomTraffic, send, tempDir } from '../helpers.js'

const sha = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex')

t.test('compact sets aside the images no event names, keeps the named ones, and deletes the set-aside a grace later', async (t) => {
  const dir = await tempDir()
  const store = await openStore(dir.path)
  const blobs = await openFileBlobStore(join(dir.path, 'blobs'))
  t.teardown(async () => {
    await store.close()
    await dir.remove()
  })
  const pod = Buffer.from('a proof of delivery')
  const refused = Buffer.from('the image of a request that was refused after it stored it')
  for (const bytes of [pod, refused]) await blobs.put(bytes, sha(bytes))
  await send(store, 'acme', command('acme', 'ORDER_ADD', {
    order_id: 'A-1', customer: 'c', location: 'l', status: 'pending', address: '1 Main', delivery_date: '2025-05-02T00:00:00Z', event_date: '2025-05-01T00:00:00Z',
  }))
  t.equal(await send(store, 'acme', command('acme', 'ORDER_COMPLETE', {
    order_id: 'A-1', address: '1 Main', delivery_date: '2025-05-02T00:00:00Z', event_date: '2025-05-01T01:00:00Z', recipient: 'R',
    pod: { sha256: sha(pod), media_type: 'image/png', bytes: pod.length },
  })), 'appended')
  let clock = Date.now()
  const now = () => clock
  const options = { store, blobs, dataDir: dir.path, graceMs: 60_000, now }

  t.same((await compact(options)).images, { setAside: 0, deleted: 0, deletedBytes: 0, restored: 0 }, 'nothing is older than the grace')
  clock += 61_000
  t.same((await compact(options)).images, { setAside: 1, deleted: 0, deletedBytes: 0, restored: 0 })
  clock += 61_000
  t.same((await compact(options)).images, { setAside: 0, deleted: 1, deletedBytes: refused.length, restored: 0 })
  t.same(await blobs.get(sha(pod)), pod, 'the image an event names is kept')
  t.equal(await blobs.get(sha(refused)), null, 'the other is gone')
})

t.test('compact copies a read model with free pages while the projector writes and readers read: nothing lost, nothing steps back', async (t) => {
  const dir = await tempDir()
  const store = await openStore(dir.path)
  const blobs = await openFileBlobStore(join(dir.path, 'blobs'))
  const readModel = new ReadModel(dir.path)
  t.teardown(async () => {
    readModel.close()
    await store.close()
    await dir.remove()
  })
  await randomTraffic(store, { seed: 31, steps: 2000, orders: 200 })
  const projector = startProjector({ store, dataDir: dir.path, pollMs: 5 })
  t.teardown(() => projector.stop())
  await projector.waitFor((await store.headPosition())!)
  const before = readModel.path

  const untouched = await compact({ store, blobs, dataDir: dir.path })
  t.equal(untouched.readModel.rewritten, false, 'a model without a tenth of its pages free is left as it is')
  t.equal(readModel.path, before)

  // Free pages, as after rows were scrubbed: a table filled and emptied in the live file.
  const live = new Sqlite(before)
  live.exec('CREATE TABLE ballast (b BLOB); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) INSERT INTO ballast SELECT zeroblob(4000) FROM n; DROP TABLE ballast')
  const freeBefore = live.pragma('freelist_count', { simple: true }) as number
  live.close()
  t.ok(freeBefore > 1000, `${freeBefore} free pages`)

  // Traffic goes on meanwhile, and every reader's count of events behind an order only grows.
  const traffic = randomTraffic(store, { seed: 32, steps: 400, orders: 200 })
  let highest = 0
  let steppedBack = 0
  let reads = 0
  // An object, not a `let`: TypeScript does not see the assignment after the loop starts.
  const reader = { reading: true }
  const reading = (async () => {
    while (reader.reading) {
      const seen = readModel.listOrders('acme', { limit: 500 }).reduce((sum, order) => sum + order.event_count, 0)
      if (seen < highest) steppedBack += 1
      highest = Math.max(highest, seen)
      reads += 1
      await new Promise((resolve) => setImmediate(resolve))
    }
  })()
  const report = await compact({ store, blobs, dataDir: dir.path })
  await traffic
  await projector.waitFor((await store.headPosition())!)
  reader.reading = false
  await reading

  t.equal(report.readModel.rewritten, true)
  t.equal(report.readModel.freePages, freeBefore)
  t.not(basename(report.readModel.path), basename(before), 'a new generation')
  t.equal(readModel.path, report.readModel.path, 'readers moved to it')
  t.equal(projector.status().orders.path, report.readModel.path, 'the live projector moved to it')
  const copy = new Sqlite(report.readModel.path, { readonly: true })
  // The projector has written to it since (and may have freed a page or two): not the thousands.
  t.ok((copy.pragma('freelist_count', { simple: true }) as number) < freeBefore / 10, 'without the free pages')
  t.equal(copy.pragma('journal_mode', { simple: true }), 'wal')
  t.ok((copy.pragma('page_count', { simple: true }) as number) < report.readModel.pages - freeBefore / 2, 'smaller')
  copy.close()
  t.ok(reads > 20 && highest > 0, `${reads} reads, the last of ${highest} events`)
  t.equal(steppedBack, 0, 'no reader saw the model step back')
  const verified = await verifyOrders({ store, readModel })
  t.same(verified.mismatches, [])
  t.ok(verified.ok, 'the compacted model, kept current by the projector, equals a fresh fold of the log')
})
