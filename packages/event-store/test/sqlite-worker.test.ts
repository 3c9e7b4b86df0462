import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import t from 'tap'
import { type EventData, openSqliteEventStore, verifyStreamChain } from '../src/index.js'
import { tempDir } from './store-fixture.js'
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
