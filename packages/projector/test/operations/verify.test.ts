import Sqlite from 'better-sqlite3'
import t from 'tap'
import { ReadModel, startProjector, verifyOrders } from '../../src/index.js'
import { openStore, randomTraffic, tempDir } from '../helpers.js'

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
  const projector = startProjector({ store, keys: store.keys, dataDir: dir.path })
  await projector.waitFor((await store.headPosition())!)
  await projector.stop()
  const victim = [...readModel.allOrders()][0]!
  const db = new Sqlite(readModel.path)
  db.prepare("UPDATE orders SET address = 'tampered' WHERE account = ? AND order_id = ?").run(victim.account, victim.order_id)
  db.prepare("INSERT INTO orders SELECT account, 'ghost', customer, location, status, address, delivery_date, recipient, reason, pod_sha256, pod_media_type, pod_bytes, signature_sha256, signature_media_type, signature_bytes, created_at, updated_at, updated_at_key, last_event_type, received_at, revision, event_count, position, erased_at FROM orders WHERE account = ? AND order_id = ?").run(victim.account, victim.order_id)
  db.close()
  const report = await verifyOrders({ store, keys: store.keys, readModel })
  t.notOk(report.ok)
  t.same(report.mismatches.map((m) => [m.orderId, m.fields]).sort(), [[victim.order_id, ['address']], ['ghost', ['row']]].sort())
})
