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

  const projector = startProjector({ store, keys: store.keys, dataDir: dir.path, batchSize: 97, pollMs: 20 })
  // More traffic while the projector runs, so live batches interleave with appends.
  await randomTraffic(store, { seed: 8, steps: 500, orders: 150 })
  const head = await store.headPosition()
  if (head === null) throw new Error('empty store')
  await projector.waitFor(head)
  t.equal(projector.lag(), 0, 'caught up: lag is zero')
  t.equal(projector.status().orders.state, 'caught_up')
  await projector.stop()

  const report = await verifyOrders({ store, keys: store.keys, readModel })
  t.same({ brokenChains: report.brokenChains, mismatches: report.mismatches }, { brokenChains: [], mismatches: [] })
  t.ok(report.ok)
  t.ok(report.streams > 100, `${report.streams} streams checked`)
  const statuses = new Set([...readModel.allOrders()].map((row) => row.status))
  t.same([...statuses].sort(), ['canceled', 'completed', 'in_progress', 'pending'], 'every lifecycle state occurs')
})
