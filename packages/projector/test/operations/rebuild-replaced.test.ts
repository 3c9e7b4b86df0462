import { join } from 'node:path'
import Sqlite from 'better-sqlite3'
import t from 'tap'
import { SCHEMA_VERSION, streamNameFor, type WireEvent } from '@waybill/domain'
import { sealDelivery, SealBrokenError } from '@waybill/personal-data'
import { rebuildReadModel, storeEventSource } from '../../src/index.js'
import { command, queryFile, randomTraffic, storeForTest, TEST_POD, type TestStore } from '../helpers.js'

// A rebuild leaves unopened the updates whose address the next event of their order replaces
// (REPLACED_BY_NEXT); its rows must be those of a rebuild that opens every part.

/** Every row of a read model file, in key order. */
const rowsOf = (path: string): unknown[] => queryFile(path, 'SELECT * FROM orders ORDER BY account, order_id')

/** The rows of a rebuild that opens every part (its source marks nothing), and of one that skips what is replaced. */
async function bothWays(store: TestStore, dataDir: string, openingThread: boolean): Promise<{ all: unknown[]; skipping: unknown[] }> {
  const source = storeEventSource(store)
  const all = await rebuildReadModel({ source, keys: store.keys, dataDir, batchSize: 7, swap: false, openingThread })
  source.close?.()
  const skipping = await rebuildReadModel({ store, keys: store.keys, dataDir, batchSize: 7, swap: false, openingThread })
  return { all: rowsOf(all.path), skipping: rowsOf(skipping.path) }
}

/** Order events whose next event in their stream is an update or a completion: what the rebuild skips. */
const replacedUpdates = (dataDir: string): Array<{ position: number; box: string }> => queryFile(join(dataDir, 'events.sqlite'), `
  SELECT e.position, e.data ->> '$.personal.box' AS box FROM events AS e JOIN events AS n ON n.stream = e.stream AND n.revision = e.revision + 1
  WHERE e.type = 'OrderUpdated' AND n.type IN ('OrderUpdated', 'OrderCompleted') ORDER BY e.position`)

/** Changes one character of the sealed box of the event at `position`. */
function changeBox(dataDir: string, position: number, box: string): void {
  const db = new Sqlite(join(dataDir, 'events.sqlite'))
  try {
    db.prepare("UPDATE events SET data = json_set(data, '$.personal.box', ?) WHERE position = ?").run(`${box.slice(0, 5)}${box[5] === 'A' ? 'B' : 'A'}${box.slice(6)}`, position)
  } finally {
    db.close()
  }
}

t.test('skipping the updates the next event replaces writes the rows of a rebuild that opens every part, on a thread or not', async (t) => {
  const { dir, store } = await storeForTest(t)
  await randomTraffic(store, { seed: 31, steps: 500, orders: 40 })
  t.ok(replacedUpdates(dir.path).length > 20, `${replacedUpdates(dir.path).length} updates replaced by the next event`)
  for (const openingThread of [true, false]) {
    const { all, skipping } = await bothWays(store, dir.path, openingThread)
    t.ok(all.length > 30, `${all.length} orders`)
    t.same(skipping, all, `opening thread: ${String(openingThread)}`)
  }
})

t.test('a replaced update is not opened: a change to its part fails only the rebuild that opens it', async (t) => {
  const { dir, store } = await storeForTest(t)
  await randomTraffic(store, { seed: 32, steps: 200, orders: 12 })
  const before = rowsOf((await rebuildReadModel({ store, keys: store.keys, dataDir: dir.path, swap: false })).path)
  const [replaced] = replacedUpdates(dir.path)
  if (replaced === undefined) throw new Error('the traffic made no replaced update')
  changeBox(dir.path, replaced.position, replaced.box)
  for (const openingThread of [true, false]) {
    const skipping = await rebuildReadModel({ store, keys: store.keys, dataDir: dir.path, swap: false, openingThread })
    t.same(rowsOf(skipping.path), before, `skipping, opening thread ${String(openingThread)}: the same rows`)
    const source = storeEventSource(store)
    await t.rejects(rebuildReadModel({ source, keys: store.keys, dataDir: dir.path, swap: false, openingThread }), SealBrokenError, 'opening every part: the change is found')
    source.close?.()
  }
})

t.test('in a log the decider would not have written, an update is skipped only when the next event is sure to replace its address', async (t) => {
  const { dir, store } = await storeForTest(t)
  let step = 0
  /** Appends a sealed event as the ingress seals it, without the decider. */
  const append = async (orderId: string, event: WireEvent, type: string, fields: Record<string, unknown>): Promise<void> => {
    step += 1
    const sealed = await sealDelivery(store.keys, 'acme', command('acme', event, { order_id: orderId, event_date: `2025-01-01T00:${String(step).padStart(2, '0')}:00Z`, ...fields }))
    if (!sealed.ok) throw new Error(sealed.refusal)
    await store.appendToStream(streamNameFor('acme', orderId), [{
      id: sealed.command.eventId, type, data: sealed.command.data as unknown as Record<string, unknown>,
      metadata: { received_at: '2025-01-01T00:00:00Z', schema_version: SCHEMA_VERSION },
    }])
  }
  const add = { customer: 'c', location: 'l', status: 'pending', address: 'added', delivery_date: '2025-02-01T00:00:00Z' }
  const update = (address: string, status = 'in_progress') => ({ status, address, delivery_date: '2025-02-02T00:00:00Z' })
  // Canceled between two updates: the second is not applied, so the first one's address stays.
  await append('canceled-between', 'ORDER_ADD', 'OrderAdded', add)
  await append('canceled-between', 'ORDER_UPDATE', 'OrderUpdated', update('first'))
  await append('canceled-between', 'ORDER_CANCELED', 'OrderCanceled', { reason: 'asked' })
  await append('canceled-between', 'ORDER_UPDATE', 'OrderUpdated', update('after the lock'))
  // An update whose stored status locks the order: the next update is not applied either.
  await append('locked-by-update', 'ORDER_ADD', 'OrderAdded', add)
  await append('locked-by-update', 'ORDER_UPDATE', 'OrderUpdated', update('locking', 'completed'))
  await append('locked-by-update', 'ORDER_UPDATE', 'OrderUpdated', update('after the lock'))
  // The usual case beside them: two updates, then a completion.
  await append('usual', 'ORDER_ADD', 'OrderAdded', add)
  await append('usual', 'ORDER_UPDATE', 'OrderUpdated', update('one'))
  await append('usual', 'ORDER_UPDATE', 'OrderUpdated', update('two'))
  await append('usual', 'ORDER_COMPLETE', 'OrderCompleted', { address: 'completed', delivery_date: '2025-02-03T00:00:00Z', recipient: 'R', pod: TEST_POD })
  for (const openingThread of [true, false]) {
    const { all, skipping } = await bothWays(store, dir.path, openingThread)
    t.same(skipping, all, `opening thread: ${String(openingThread)}`)
    t.same((all as Array<{ order_id: string; address: string }>).map((row) => [row.order_id, row.address]),
      [['canceled-between', 'first'], ['locked-by-update', 'locking'], ['usual', 'completed']])
  }
})
