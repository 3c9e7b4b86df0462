import Sqlite from 'better-sqlite3'
import t from 'tap'
import { ReadModel, startProjector, verifyOrders } from '../../src/index.js'
import { openStore, randomTraffic, tempDir } from '../helpers.js'

t.test('after random traffic the read model equals a fresh fold of the log', async (t) => {
  const dir = await tempDir()
  const store = await openStore(dir.path)
  const readModel = new ReadModel(dir.path)
  t.teardown(async () => {
    readModel.close()
    await store.close()
    await dir.remove()
  })
  const before = await randomTraffic(store, { seed: 7, steps: 1500, orders: 150 })
  t.ok((before.appended ?? 0) > 300, 'traffic appended events')
  t.ok((before.locked ?? 0) + (before.not_found ?? 0) + (before.conflict ?? 0) > 0, 'and had rejected commands')

  const projector = startProjector({ store, dataDir: dir.path, batchSize: 97, pollMs: 20 })
  // More traffic while the projector runs, so live batches interleave with appends.
  await randomTraffic(store, { seed: 8, steps: 500, orders: 150 })
  const head = await store.headPosition()
  if (head === null) throw new Error('empty store')
  await projector.waitFor(head)
  t.equal(projector.lag(), 0, 'caught up: lag is zero')
  t.equal(projector.status().state, 'caught_up')
  await projector.stop()

  const report = await verifyOrders({ store, readModel })
  t.same({ brokenChains: report.brokenChains, mismatches: report.mismatches }, { brokenChains: [], mismatches: [] })
  t.ok(report.ok)
  t.ok(report.streams > 100, `${report.streams} streams checked`)
  const statuses = new Set([...readModel.allOrders()].map((row) => row.status))
  t.same([...statuses].sort(), ['canceled', 'completed', 'in_progress', 'pending'], 'every lifecycle state occurs')
})

t.test('verify notices a read-model row that differs from the fold', async (t) => {
  const dir = await tempDir()
  const store = await openStore(dir.path)
  const readModel = new ReadModel(dir.path)
  t.teardown(async () => {
    readModel.close()
    await store.close()
    await dir.remove()
  })
  await randomTraffic(store, { seed: 3, steps: 200, orders: 20 })
  const projector = startProjector({ store, dataDir: dir.path })
  await projector.waitFor((await store.headPosition())!)
  await projector.stop()
  const victim = [...readModel.allOrders()][0]!
  const db = new Sqlite(readModel.path)
  db.prepare("UPDATE orders SET address = 'tampered' WHERE account = ? AND order_id = ?").run(victim.account, victim.order_id)
  db.prepare("INSERT INTO orders SELECT account, 'ghost', customer, location, status, address, delivery_date, recipient, reason, pod_sha256, pod_media_type, pod_bytes, signature_sha256, signature_media_type, signature_bytes, created_at, updated_at, updated_at_key, last_event_type, received_at, revision, event_count, position FROM orders WHERE account = ? AND order_id = ?").run(victim.account, victim.order_id)
  db.close()
  const report = await verifyOrders({ store, readModel })
  t.notOk(report.ok)
  t.same(report.mismatches.map((m) => [m.orderId, m.fields]).sort(), [[victim.order_id, ['address']], ['ghost', ['row']]].sort())
})
