import { randomUUID } from 'node:crypto'
import t from 'tap'
import { openEventStoreDbStore, redactConnectionString, subscribeAllWithRetry } from '../../src/eventstoredb/index.js'
import type { RecordedEvent } from '../../src/index.js'
import { eventStoreContract } from '../contract.js'

// The shared contract against a real EventStoreDB, when one is named. Nothing here can run on
// a machine without a server, and the suite says so instead of passing vacuously.
const connectionString = process.env.EVENTSTORE_CONNECTION_STRING?.trim() ?? ''

if (connectionString === '') {
  t.plan(0, 'EVENTSTORE_CONNECTION_STRING not set: no EventStoreDB server to test against')
} else {
  const open = (): ReturnType<typeof openEventStoreDbStore> => openEventStoreDbStore({ connectionString, connectTimeoutMs: 15_000 })
  await eventStoreContract(t, { name: `eventstoredb (${redactConnectionString(connectionString)})`, open, reopen: open })

  await t.test('a live subscription sees new events of its categories, after the given position', async (t) => {
    const store = await open()
    t.teardown(() => store.close())
    const category = `live${randomUUID().replaceAll('-', '')}`
    const first = await store.appendToStream(`${category}-1`, [{ id: randomUUID(), type: 'A', data: { n: 1 } }], { expectedRevision: 'no_stream' })
    const controller = new AbortController()
    const seen: RecordedEvent[] = []
    const following = subscribeAllWithRetry(store, {
      after: first.position,
      categories: [category],
      signal: controller.signal,
      onEvent: (event) => {
        seen.push(event)
        if (seen.length === 2) controller.abort()
      },
    })
    await store.appendToStream(`other${category}-1`, [{ id: randomUUID(), type: 'X', data: {} }])
    await store.appendToStream(`${category}-2`, [{ id: randomUUID(), type: 'B', data: { n: 2 } }])
    await store.appendToStream(`${category}-1`, [{ id: randomUUID(), type: 'C', data: { n: 3 } }], { expectedRevision: 0 })
    const timer = setTimeout(() => controller.abort(), 20_000)
    await following
    clearTimeout(timer)
    t.same(seen.map((e) => e.type), ['B', 'C'], 'the events after the position, of the category only')
    t.equal(seen[1]!.metadata.prev_hash, (await store.readStream(`${category}-1`))[0]!.hash, 'hash chain intact')
  })
}
