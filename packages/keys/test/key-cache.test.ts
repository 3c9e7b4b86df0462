import t from 'tap'
import { openMemoryEventStore, type EventStore, type RecordedEvent } from '@waybill/event-store'
import { KeyCache } from '../src/key-cache.js'
import { keyStreamName } from '../src/key-events.js'
import { KeyRing } from '../src/key-ring.js'

const NOW = new Date('2025-03-01T08:00:00.000Z')

/** The store, counting key-stream reads, with the reads of one stream held until `release` is called. */
function observed(store: EventStore, options: { withoutCategoryHead?: boolean } = {}) {
  const reads: string[] = []
  let held: { name: string; release: Promise<void> } | null = null
  const wrapped: EventStore = {
    appendToStream: (name, events, appendOptions) => store.appendToStream(name, events, appendOptions),
    readAll: (readOptions) => store.readAll(readOptions),
    headPosition: () => store.headPosition(),
    close: () => store.close(),
    readStream: async (name, readOptions): Promise<RecordedEvent[]> => {
      reads.push(name)
      const events = await store.readStream(name, readOptions)
      if (held?.name === name) await held.release
      return events
    },
    ...(options.withoutCategoryHead === true || store.categoryHead === undefined
      ? {}
      : { categoryHead: (category: string) => store.categoryHead!(category) }),
  }
  return {
    store: wrapped,
    reads,
    hold: (name: string): (() => void) => {
      let release = (): void => undefined
      held = { name, release: new Promise<void>((done) => { release = done }) }
      return release
    },
  }
}

t.test('two key rings on one store: a change made through either is seen by the other on its next lookup', async (t) => {
  const store = openMemoryEventStore()
  const { store: seen, reads } = observed(store)
  const serving = new KeyRing(seen, () => NOW)
  const operator = new KeyRing(store, () => NOW)
  t.teardown(async () => { await serving.close(); await operator.close() })
  const { key, record } = await operator.issue({ account: 'acme', scopes: ['orders:read', 'orders:add'] })
  const stream = keyStreamName(record.keyId)

  for (let i = 0; i < 3; i += 1) t.equal((await serving.authenticate(key))?.keyId, record.keyId)
  t.equal(reads.filter((name) => name === stream).length, 1, 'the key stream is read once while nothing changes')

  await operator.update(record.keyId, { scopes: ['orders:add'] })
  t.same((await serving.authenticate(key))?.scopes, ['orders:add'], 'a scope change is seen at once')
  await operator.revoke(record.keyId, 'test')
  t.equal(await serving.authenticate(key), null, 'a revocation is seen at once')
  t.equal(await serving.authenticate(key), null, 'and stays seen')
  t.equal(reads.filter((name) => name === stream).length, 3, 'each change costs one read of the stream')
})

t.test('a record read while the counter moved is used once but not kept', async (t) => {
  const store = openMemoryEventStore()
  const operator = new KeyRing(store, () => NOW)
  t.teardown(() => operator.close())
  const slow = await operator.issue({ account: 'acme', scopes: ['orders:read'] })
  const other = await operator.issue({ account: 'acme', scopes: ['orders:read'] })
  const { store: seen, reads, hold } = observed(store)
  const cache = new KeyCache(seen)
  const release = hold(keyStreamName(slow.record.keyId))
  const pending = cache.record(slow.record.keyId)
  await operator.revoke(slow.record.keyId, 'test')
  t.equal((await cache.record(other.record.keyId))?.state, 'active', 'another lookup sees the counter move')
  release()
  t.equal((await pending)?.state, 'active', 'the slow lookup answers what it read (it started before the revocation)')
  t.equal((await cache.record(slow.record.keyId))?.state, 'revoked', 'the next lookup reads the stream again')
  t.equal(reads.filter((name) => name === keyStreamName(slow.record.keyId)).length, 2)
})

t.test('a store without categoryHead is not cached: every lookup reads the key stream', async (t) => {
  const store = openMemoryEventStore()
  const operator = new KeyRing(store, () => NOW)
  t.teardown(() => operator.close())
  const { record } = await operator.issue({ account: 'acme', scopes: ['orders:read'] })
  const { store: seen, reads } = observed(store, { withoutCategoryHead: true })
  const cache = new KeyCache(seen)
  t.equal((await cache.record(record.keyId))?.keyId, record.keyId)
  t.equal((await cache.record(record.keyId))?.keyId, record.keyId)
  t.equal(await cache.record('NoSuchKey123'), null)
  t.equal(reads.length, 3)
})

t.test('unknown key ids are cached too, but the cache never holds more than its bound', async (t) => {
  const store = openMemoryEventStore()
  const { store: seen, reads } = observed(store)
  const cache = new KeyCache(seen)
  let unknown = 0
  for (let i = 0; i <= 10_000; i += 1) if (await cache.record(`unknown${String(i).padStart(7, '0')}`) === null) unknown += 1
  t.equal(unknown, 10_001)
  t.equal(await cache.record('unknown0010000'), null, 'the last one is kept after the cache started again')
  t.equal(await cache.record('unknown0000000'), null)
  t.equal(reads.length, 10_002, 'the first one was dropped when the bound was reached')
})
