import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import t from 'tap'
import {
  type EventData, openSqliteEventStore, type Position, StoreUnavailableError, summarizeBatchSizes, verifyStreamChain,
  WrongExpectedVersionError,
} from '../../src/index.js'
import { freshStore, tempDir } from '../store-fixture.js'
import { writerCases } from './writer-cases.js'

const event = (data: Record<string, unknown> = {}): EventData => ({ id: randomUUID(), type: 'Happened', data })

writerCases(t, 'inline')

t.test('maxBatchSize 1 commits every append on its own', async (t) => {
  const store = await freshStore(t, { maxBatchSize: 1 })
  await Promise.all(Array.from({ length: 20 }, (_, i) => store.appendToStream(`s-${i}`, [event()])))
  t.same(store.stats().batchSizeCounts, [[1, 20]])
  t.same(summarizeBatchSizes(store.stats()), { mean: 1, p50: 1, max: 1 })
})

t.test('an id already stored in another stream is a conflict, not a second copy', async (t) => {
  const store = await freshStore(t)
  const shared = event()
  await store.appendToStream('order-a-1', [shared], { expectedRevision: 'no_stream' })
  await t.rejects(store.appendToStream('order-a-2', [shared], { expectedRevision: 'no_stream' }), WrongExpectedVersionError)
  await t.rejects(store.appendToStream('order-a-2', [event(), shared], { expectedRevision: 'any' }), WrongExpectedVersionError,
    'also when it is not the first event of the append')
  t.same(await store.readStream('order-a-2'), [])
  const partial = [shared, event()]
  await t.rejects(store.appendToStream('order-a-1', partial, { expectedRevision: 'no_stream' }), WrongExpectedVersionError,
    'a re-append that matches only in part is a conflict')
})

t.test('malformed appends are refused before reaching the writer', async (t) => {
  const store = await freshStore(t)
  await t.rejects(store.appendToStream('s', []), RangeError)
  await t.rejects(store.appendToStream('', [event()]), TypeError)
  const twice = event()
  await t.rejects(store.appendToStream('s', [twice, twice]), RangeError)
  await t.rejects(store.appendToStream('s', [{ ...event(), id: '' }]), TypeError)
  await t.rejects(store.appendToStream('s', [{ ...event(), type: '' }]), TypeError)
  await t.rejects(store.appendToStream('s', [event()], { expectedRevision: -1 }), RangeError)
  t.equal(store.stats().appends, 0)
})

t.test('onAppended tells in-process listeners the new head; unsubscribe stops it', async (t) => {
  const store = await freshStore(t)
  const heads: Position[] = []
  const stop = store.onAppended((head) => heads.push(head))
  store.onAppended(() => { throw new Error('a broken listener does not break appends') })
  await store.appendToStream('s-1', [event(), event()])
  stop()
  await store.appendToStream('s-1', [event()])
  t.same(heads, [{ commit: 2n, prepare: 2n }])
})

t.test('a file that is not a database cannot be opened: unavailable', async (t) => {
  const dir = await tempDir(t)
  const { writeFile } = await import('node:fs/promises')
  await writeFile(join(dir, 'junk.db'), 'this is not a sqlite file at all, just text'.repeat(100))
  await t.rejects(openSqliteEventStore({ path: join(dir, 'junk.db') }), StoreUnavailableError)
  await t.rejects(openSqliteEventStore({ path: join(dir, 'junk.db'), writer: 'worker' }), StoreUnavailableError)
  await t.rejects(openSqliteEventStore({ path: join(dir, 'missing', 'x.db') }), /directory does not exist/)
})

t.test('verifyStreamChain names the first broken link', async (t) => {
  const store = await freshStore(t)
  await store.appendToStream('order-v-1', [event({ n: 0 }), event({ n: 1 }), event({ n: 2 })])
  const events = await store.readStream('order-v-1')
  t.same(verifyStreamChain(events.slice(1)), { ok: false, revision: 1, reason: 'expected revision 0, found 1' })
  const relinked = events.map((e, i) => (i === 2 ? { ...e, metadata: { ...e.metadata, prev_hash: events[0]!.hash } } : e))
  t.same(verifyStreamChain(relinked), { ok: false, revision: 2, reason: 'prev_hash does not match the previous event' })
  const foreign = events.map((e, i) => (i === 1 ? { ...e, streamName: 'order-v-2' } : e))
  t.match(verifyStreamChain(foreign), { ok: false, revision: 1, reason: /belongs to stream order-v-2/ })
  t.same(verifyStreamChain([]), { ok: true })
})

t.test('gaps: none in a log written through the store; rows deleted behind its back are counted and located', async (t) => {
  const store = await freshStore(t)
  t.same(await store.gaps(), { missing: 0, firstMissing: [] }, 'an empty log')
  for (let i = 0; i < 10; i += 1) await store.appendToStream(`s-${i}`, [event()])
  t.same(await store.gaps(), { missing: 0, firstMissing: [] })
  const db = new Database(store.path)
  db.prepare('DELETE FROM events WHERE position IN (1, 4, 5, 8, 10)').run()
  db.close()
  // Position 10 was the head: a cut at the end of the log leaves no gap to find.
  t.same(await store.gaps(), { missing: 4, firstMissing: [1n, 4n, 8n] })
  t.same(await store.gaps(2), { missing: 4, firstMissing: [1n, 4n] }, 'a smaller sample')
})
