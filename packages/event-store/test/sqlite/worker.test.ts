import { randomUUID } from 'node:crypto'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { type EventData, openSqliteEventStore, verifyStreamChain } from '../../src/index.js'
import { tempDir } from '../store-fixture.js'
import { writerCases } from './writer-cases.js'

const event = (data: Record<string, unknown> = {}): EventData => ({ id: randomUUID(), type: 'Happened', data })

writerCases(t, 'worker')

t.test('two stores on one file (as two processes would) keep one gap-free log', async (t) => {
  const path = join(await tempDir(t), 'events.db')
  const [a, b] = await Promise.all([openSqliteEventStore({ path }), openSqliteEventStore({ path, writer: 'worker' })])
  t.teardown(async () => { await a.close(); await b.close() })
  const results = await Promise.allSettled(Array.from({ length: 40 }, (_, i) =>
    (i % 2 === 0 ? a : b).appendToStream('order-shared-1', [event({ i })], { expectedRevision: 'any' })))
  t.ok(results.every((r) => r.status === 'fulfilled'))
  const all = await a.readAll()
  t.same(all.map((e) => Number(e.position.commit)), Array.from({ length: 40 }, (_, i) => i + 1), 'positions 1..40')
  t.same(all.map((e) => e.revision), Array.from({ length: 40 }, (_, i) => i), 'revisions 0..39')
  t.same(verifyStreamChain(await b.readStream('order-shared-1')), { ok: true }, 'one hash chain across both writers')
  const race = await Promise.allSettled([a, b].map((store) =>
    store.appendToStream('order-shared-2', [event()], { expectedRevision: 'no_stream' })))
  t.equal(race.filter((r) => r.status === 'fulfilled').length, 1, 'across connections, too, one create wins')
})

t.test('with the worker writer, WAL frames reach the database file while appends go on (background checkpoints)', async (t) => {
  const path = join(await tempDir(t), 'events.db')
  const store = await openSqliteEventStore({ path, writer: 'worker' })
  t.teardown(() => store.close())
  const filler = 'x'.repeat(2_000)
  // ~6 MB of events: under SQLite's default (1,000 pages) the writer would checkpoint by itself,
  // but its threshold is raised to ~40 MB here, so only the checkpoint thread can move them.
  for (let wave = 0; wave < 30; wave += 1) {
    await Promise.all(Array.from({ length: 100 }, (_, i) =>
      store.appendToStream(`order-ckpt-${wave}-${i}`, [event({ filler })], { expectedRevision: 'no_stream' })))
  }
  const deadline = Date.now() + 10_000
  while (statSync(path).size < 5_000_000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
  t.ok(statSync(path).size >= 5_000_000, `database file ${statSync(path).size} bytes while open: the WAL was checkpointed into it`)
  t.equal((await store.readAll({ maxCount: 5000 })).length, 3000, 'every event readable')
})

t.test('appends made while the worker is busy with earlier ones are gathered, then stored in the order they were made', async (t) => {
  const store = await openSqliteEventStore({ path: join(await tempDir(t), 'events.db'), writer: 'worker' })
  t.teardown(() => store.close())
  // One append per turn of the event loop, each while earlier ones are still in the worker's hands.
  const appends: Array<Promise<unknown>> = []
  for (let i = 0; i < 30; i += 1) {
    appends.push(store.appendToStream('order-gathered-1', [event({ i })], { expectedRevision: i === 0 ? 'no_stream' : i - 1 }))
    await new Promise((resolve) => setImmediate(resolve))
  }
  const results = await Promise.allSettled(appends)
  t.same(results.filter((r) => r.status === 'rejected'), [], 'each expected the revision before it: all in order')
  t.same((await store.readStream('order-gathered-1')).map((e) => e.data['i']), Array.from({ length: 30 }, (_, i) => i))
})
