import t from 'tap'
import { ReadModel, startProjector, storeEventSource, verifyOrders, type EventSource } from '../../src/index.js'
import { openStore, randomTraffic, tempDir, type TestStore } from '../helpers.js'

t.test('the projector rides out the store going away and coming back, then catches up', async (t) => {
  const dir = await tempDir()
  let store: TestStore = await openStore(dir.path)
  const readModel = new ReadModel(dir.path)
  t.teardown(async () => {
    readModel.close()
    await store.close()
    await dir.remove()
  })
  // The source follows whichever store object is current: closing it is a real outage (its
  // reads throw StoreUnavailableError), reopening the file is the store coming back.
  const source = (): EventSource => {
    const sources = new Map<TestStore, EventSource>()
    const current = (): EventSource => {
      let source = sources.get(store)
      if (source === undefined) sources.set(store, source = storeEventSource(store))
      return source
    }
    return {
      pull: (after, max) => current().pull(after, max),
      headPosition: () => current().headPosition(),
      countAfter: (after, limit) => current().countAfter(after, limit),
      waitForMore: (ms, signal) => current().waitForMore(ms, signal),
    }
  }
  const warnings: string[] = []
  const errors: string[] = []
  const projector = startProjector({
    source, keys: { get: (account, orderId) => store.keys.get(account, orderId) }, dataDir: dir.path, pollMs: 10, retry: { initialMs: 10, maxMs: 80 },
    logger: { info() {}, warn: (_o, m) => warnings.push(m ?? ''), error: (_o, m) => errors.push(m ?? '') },
  })
  await randomTraffic(store, { seed: 5, steps: 200, orders: 30 })
  await projector.waitFor((await store.headPosition())!)

  await store.close()
  const deadline = Date.now() + 5000
  while (projector.status().orders.state !== 'retrying' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5))
  t.equal(projector.status().orders.state, 'retrying', 'notices the outage')
  t.match(projector.status().orders.lastError, /closed/)
  t.ok(errors.length >= 1, 'logs it')

  store = await openStore(dir.path)
  await randomTraffic(store, { seed: 6, steps: 200, orders: 30 })
  const head = (await store.headPosition())!
  await projector.waitFor(head)
  t.equal(projector.lag(), 0)
  t.not(projector.status().orders.state, 'retrying', 'resumed by itself')
  await projector.stop()
  t.equal(projector.status().orders.state, 'stopped')
  t.ok((await verifyOrders({ store, keys: store.keys, readModel })).ok)
})

t.test('an unknown event type in an order stream is skipped with a log line, never a crash', async (t) => {
  const dir = await tempDir()
  const store = await openStore(dir.path)
  const readModel = new ReadModel(dir.path)
  t.teardown(async () => {
    readModel.close()
    await store.close()
    await dir.remove()
  })
  await randomTraffic(store, { seed: 9, steps: 40, orders: 5 })
  await store.appendToStream('order-acme-o-1', [{ id: '0b9f9a52-3b0c-4a6e-9a51-6f0d1c1f0c01', type: 'OrderRerouted', data: { order_id: 'o-1', event_date: '2025-02-01T00:00:00Z' } }])
  await store.appendToStream('other-stream', [{ id: '0b9f9a52-3b0c-4a6e-9a51-6f0d1c1f0c02', type: 'Whatever', data: {} }])
  await randomTraffic(store, { seed: 10, steps: 40, orders: 5 })
  const warnings: Array<{ object: object; message: string }> = []
  const projector = startProjector({
    store, keys: store.keys, dataDir: dir.path,
    logger: { info() {}, error() {}, warn: (object, message) => warnings.push({ object, message: message ?? '' }) },
  })
  await projector.waitFor((await store.headPosition())!)
  await projector.stop()
  t.same(warnings.map((w) => w.object), [{ stream: 'order-acme-o-1', revision: warnings[0] ? (warnings[0].object as { revision: number }).revision : -1, type: 'OrderRerouted' }])
  t.match(warnings[0]?.message, /unknown event type skipped/)
  t.equal(projector.lag(), 0, 'the checkpoint moved past it and past the other category')
  t.ok((await verifyOrders({ store, keys: store.keys, readModel })).ok, 'the rest of the model is right')
})
