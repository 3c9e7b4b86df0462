import { randomUUID } from 'node:crypto'
import t from 'tap'
import { openMemoryEventStore, type EventStore, type ReadAllOptions } from '@waybill/event-store'
import { eachBatch } from '../../src/operations/each-batch.js'

async function storeOf(streams: readonly string[]): Promise<EventStore> {
  const store = openMemoryEventStore()
  for (const stream of streams) await store.appendToStream(stream, [{ id: randomUUID(), type: 'OrderAdded', data: {}, metadata: {} }])
  return store
}

t.test('every event of the categories asked, a batch at a time, in order; a read that comes back short does not end it, an empty one does', async (t) => {
  const store = await storeOf(['order-acme-1', 'apikey-k1', 'order-acme-2', 'order-acme-3', 'apikey-k2', 'order-acme-4', 'order-acme-5'])
  const reads: number[] = []
  // A store that answers fewer than asked (as `readAll` may): one event per read.
  const stingy = { readAll: async (options?: ReadAllOptions) => { const events = await store.readAll({ ...options, maxCount: 1 }); reads.push(events.length); return events } }
  const seen: string[][] = []
  await eachBatch(stingy, { categories: ['order'], batch: 2 }, (batch) => { seen.push(batch.map((event) => event.streamName)) })
  t.same(seen, [['order-acme-1'], ['order-acme-2'], ['order-acme-3'], ['order-acme-4'], ['order-acme-5']])
  t.same(reads, [1, 1, 1, 1, 1, 0], 'read on until a read comes back empty')

  const batches: number[] = []
  await eachBatch(store, { batch: 3 }, async (batch) => { batches.push(batch.length) })
  t.same(batches, [3, 3, 1], 'every category when none is named')
})

t.test('use answering false (or a promise of it) stops the walk there', async (t) => {
  const store = await storeOf(['order-acme-1', 'order-acme-2', 'order-acme-3', 'order-acme-4'])
  let calls = 0
  await eachBatch(store, { batch: 1 }, () => ++calls < 2)
  t.equal(calls, 2)
  calls = 0
  await eachBatch(store, { batch: 1 }, async () => { calls += 1; return calls < 3 })
  t.equal(calls, 3)
  calls = 0
  await eachBatch(await storeOf([]), { batch: 5 }, () => { calls += 1 })
  t.equal(calls, 0, 'an empty log: use is never called')
})
