import t from 'tap'
import { openMemoryEventStore, type ReadStreamOptions } from '@waybill/event-store'
import { lastEventOf } from '../src/stream-tail.js'

t.test('the last event of streams of every length, in few reads', async (t) => {
  const store = openMemoryEventStore()
  t.equal(await lastEventOf(store, 'apikeyuse-none'), null)
  let length = 0
  for (const target of [1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 100, 1000]) {
    const events = Array.from({ length: target - length }, (_, i) => ({ id: crypto.randomUUID(), type: 'KeyUsed', data: { n: length + i } }))
    await store.appendToStream('apikeyuse-A', events)
    length = target
    let reads = 0
    const counting = {
      appendToStream: store.appendToStream.bind(store),
      readStream: (name: string, options?: ReadStreamOptions) => { reads += 1; return store.readStream(name, options) },
    }
    const last = await lastEventOf(counting, 'apikeyuse-A')
    t.match(last, { revision: length - 1, data: { n: length - 1 } }, `${length} events`)
    t.ok(reads <= 2 * Math.ceil(Math.log2(length + 1)) + 2, `${length} events: ${reads} reads`)
  }
})
