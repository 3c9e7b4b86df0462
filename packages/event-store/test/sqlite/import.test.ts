import { randomUUID } from 'node:crypto'
import t, { type Test } from 'tap'
import { hashEvent, StoreUnavailableError, verifyStreamChain, type EventData, type RecordedEvent } from '../../src/index.js'
import { freshStore } from '../store-fixture.js'

const event = (data: Record<string, unknown> = {}): EventData => ({ id: randomUUID(), type: 'Happened', data, metadata: { received_at: '2026-11-27T10:00:00.000Z' } })

/** A log of three interleaved streams and one of another category, as the store wrote it. */
async function recorded(t: Test): Promise<RecordedEvent[]> {
  const source = await freshStore(t)
  for (let i = 0; i < 12; i += 1) await source.appendToStream(`order-acme-${i % 3}`, [event({ n: i, nested: { b: [1, 2], a: 'x' } })])
  await source.appendToStream('key-1', [event({ k: true }), event({ k: false })])
  return source.readAll({ maxCount: 100 })
}

t.test('recorded events are written as they were: ids, revisions, hashes, metadata, positions and times', async (t) => {
  const events = await recorded(t)
  const target = await freshStore(t, { writer: 'worker' })
  await target.importRecorded(events.slice(0, 5))
  await target.importRecorded(events.slice(5))
  t.same(await target.readAll({ maxCount: 100 }), events)
  t.same(await target.headPosition(), events.at(-1)?.position)
  t.same(await target.gaps(), { missing: 0, firstMissing: [] })
  t.same(verifyStreamChain(await target.readStream('order-acme-1')), { ok: true })
  const appended = await target.appendToStream('order-acme-1', [event()], { expectedRevision: 3 })
  t.equal(appended.position.commit, BigInt(events.length + 1), 'appends go on after them')
  t.same(verifyStreamChain(await target.readStream('order-acme-1')), { ok: true }, 'chained to the imported events')
})

t.test('an event that does not extend the log, its stream or its chain is refused, and nothing of the call is written', async (t) => {
  const events = await recorded(t)
  const target = await freshStore(t)
  await target.importRecorded(events.slice(0, 4))
  const fourth = events[4] as RecordedEvent
  const rehashed = (changed: RecordedEvent): RecordedEvent => ({ ...changed, hash: hashEvent(changed) })
  const cases: Array<[string, RecordedEvent, RegExp]> = [
    ['a gap in the log', { ...fourth, position: { commit: 6n, prepare: 6n } }, /expected position 5/],
    ['a position whose halves differ', { ...fourth, position: { commit: 5n, prepare: 4n } }, /expected position 5/],
    ['a revision skipped', rehashed({ ...fourth, revision: fourth.revision + 1 }), /expected revision 1/],
    ['a chain that does not hold', rehashed({ ...fourth, metadata: { ...fourth.metadata, prev_hash: 'f'.repeat(64) } }), /prev_hash is not the hash of the event before it/],
    ['changed content', { ...fourth, data: { ...fourth.data, n: 99 } }, /its content does not match its hash/],
    ['an id already in the log', rehashed({ ...fourth, id: (events[0] as RecordedEvent).id }), /its id is already in the log/],
  ]
  for (const [what, bad, message] of cases) {
    await t.rejects(target.importRecorded([bad]), { name: 'RangeError', message }, what)
    t.equal((await target.readAll({ maxCount: 100 })).length, 4, `${what}: nothing written`)
  }
  await t.rejects(target.importRecorded([events[4] as RecordedEvent, { ...(events[5] as RecordedEvent), data: {} }]), RangeError)
  t.equal((await target.readAll({ maxCount: 100 })).length, 4, 'a refusal late in the call undoes its earlier events')
  await target.close()
  await t.rejects(target.importRecorded(events.slice(4)), StoreUnavailableError)
})
