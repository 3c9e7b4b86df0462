/**
 * The EventStore contract, written once and run against every adapter. Each adapter's test file
 * calls `eventStoreContract(t, { name, open, reopen })`. Stream names and categories are fresh
 * per run and event ids are UUIDs, so the suite can run against a shared server with data in it.
 */
import { randomUUID } from 'node:crypto'
import type { Test } from 'tap'
import { canonicalJson } from '@waybill/domain'
import {
  comparePositions, type EventData, type EventStore, PREFLIGHT_CHECKS, preflightContext, type RecordedEvent,
  verifyStreamChain,
} from '../src/index.js'

export interface ContractSubject {
  readonly name: string
  /** A store to test; the suite closes what it opens. */
  open(): Promise<EventStore>
  /** Opens the same store again after `close()` (same file, same server); omit to skip that test. */
  readonly reopen?: () => Promise<EventStore>
}

export function eventStoreContract(t: Test, subject: ContractSubject): Promise<unknown> {
  return t.test(`EventStore contract: ${subject.name}`, async (t) => {
    const store = await subject.open()
    t.teardown(() => store.close())
    const run = randomUUID().replaceAll('-', '')
    let counter = 0
    const stream = (category = `c${run}`): string => `${category}-${++counter}`
    const event = (type = 'Happened', data: Record<string, unknown> = { n: counter }): EventData =>
      ({ id: randomUUID(), type, data, metadata: { request_id: randomUUID() } })

    t.test('revisions count from 0 and a stream reads back in order', async (t) => {
      const name = stream()
      const events = [event('A', { n: 1 }), event('B', { n: 2, nested: { list: [1, 'two', null] } }), event('C', { n: 3 })]
      const first = await store.appendToStream(name, events.slice(0, 1), { expectedRevision: 'no_stream' })
      t.equal(first.nextExpectedRevision, 0)
      const rest = await store.appendToStream(name, events.slice(1), { expectedRevision: 0 })
      t.equal(rest.nextExpectedRevision, 2)
      t.ok(comparePositions(rest.position, first.position) > 0, 'the later append sits later in the log')
      const read = await store.readStream(name)
      t.same(read.map((e) => [e.revision, e.id, e.type, e.data, e.streamName]),
        events.map((e, i) => [i, e.id, e.type, e.data, name]))
      t.ok(read.every((e, i) => i === 0 || comparePositions(e.position, read[i - 1]!.position) > 0), 'positions increase')
      t.same(read.at(-1)!.position, rest.position, 'the append result names the last event written')
      t.ok(read.every((e) => e.createdAt instanceof Date && !Number.isNaN(e.createdAt.getTime())))
    })

    t.test('reading a stream that does not exist gives no events', async (t) => {
      t.same(await store.readStream(stream()), [])
    })

    t.test('readStream honours fromRevision and maxCount', async (t) => {
      const name = stream()
      await store.appendToStream(name, [event(), event(), event(), event()], { expectedRevision: 'no_stream' })
      t.same((await store.readStream(name, { fromRevision: 1, maxCount: 2 })).map((e) => e.revision), [1, 2])
      t.same((await store.readStream(name, { fromRevision: 3 })).map((e) => e.revision), [3])
      t.same(await store.readStream(name, { fromRevision: 4 }), [])
    })

    // The port's promises that `waybill store check` also checks against a deployed store: one
    // home for each (src/preflight), run here against every adapter.
    const preflight = preflightContext(store, () => subject.open(), `p${run}`)
    for (const check of PREFLIGHT_CHECKS) {
      t.test(check.name, async (t) => {
        await check.run(preflight)
        t.pass(check.name)
      })
    }

    t.test('metadata round trip with the hash chain', async (t) => {
      const name = stream()
      const metadata = { received_at: '2025-01-02T03:04:05Z', key_id: 'k1', nested: { a: [1, 2] }, schema_version: 1 }
      await store.appendToStream(name, [{ id: randomUUID(), type: 'A', data: { x: 1 }, metadata }], { expectedRevision: 'no_stream' })
      await store.appendToStream(name, [{ id: randomUUID(), type: 'B', data: {} }, event()], { expectedRevision: 0 })
      const read = await store.readStream(name)
      t.same(read[0]!.metadata, { ...metadata, prev_hash: null }, 'caller metadata is kept; the first event has no prev_hash')
      t.equal(read[1]!.metadata.prev_hash, read[0]!.hash, 'each event links to the previous one')
      t.equal(read[2]!.metadata.prev_hash, read[1]!.hash)
      t.ok(read.every((e) => /^[0-9a-f]{64}$/.test(e.hash)), 'hashes are sha256 hex')
      t.same(verifyStreamChain(read), { ok: true })
      const tampered: RecordedEvent[] = read.map((e, i) => (i === 1 ? { ...e, data: { x: 'forged' } } : e))
      t.same(verifyStreamChain(tampered), { ok: false, revision: 1, reason: 'content does not match its hash' })
      // A run of the stream, checked with the event before it: as a page of a history is.
      t.same(verifyStreamChain(read.slice(1), read[0]), { ok: true }, 'a run checks out against the event before it')
      t.same(verifyStreamChain(read.slice(2), read[0]), { ok: false, revision: 2, reason: 'expected revision 1, found 2' }, 'a gap after it is caught')
      t.same(verifyStreamChain(read.slice(2), { ...read[1]!, hash: read[0]!.hash }), { ok: false, revision: 2, reason: 'prev_hash does not match the previous event' },
        'and a link to another event')
    })

    t.test('optional abilities keep the port\'s promises where an adapter has them', async (t) => {
      const category = `a${run}`
      const before = await store.headPosition()
      const heads: number[] = []
      const stop = store.onAppended?.(() => heads.push(heads.length))
      const names = [stream(category), stream(category)]
      await store.appendToStream(names[0]!, [event('A'), event('B')], { expectedRevision: 'no_stream' })
      await store.appendToStream(names[1]!, [event('C')], { expectedRevision: 'no_stream' })
      if (stop !== undefined) {
        t.ok(heads.length >= 1, 'onAppended: listeners hear of appends')
        stop()
        const heard = heads.length
        await store.appendToStream(names[1]!, [event('D')], { expectedRevision: 0 })
        t.equal(heads.length, heard, 'onAppended: unsubscribed listeners hear nothing more')
      }
      if (store.readAllForProjection !== undefined) {
        const full = await store.readAll({ after: before, categories: [category] })
        const projected = await store.readAllForProjection({ after: before, categories: [category], metadataKeys: ['request_id'] })
        t.same(projected, full.map((e) => ({
          streamName: e.streamName, id: e.id, type: e.type, data: e.data, metadata: { request_id: e.metadata.request_id },
          revision: e.revision, position: e.position,
        })), 'readAllForProjection: the events readAll reads, with only the metadata asked for')
        const text = await store.readAllForProjection({ after: before, categories: [category], dataKeys: [], dataText: true, metadataKeys: [] })
        t.same(text.map((e) => [e.data, e.dataText]), full.map((e) => [{}, canonicalJson(e.data)]),
          'readAllForProjection: the data\'s canonical text, and only the data members asked for')
        // Streams: A then B; C then D. An A is followed by a B, a C by a D; D has no next, B is not asked about.
        const followed = await store.readAllForProjection({ after: before, categories: [category], followedBy: { of: ['A', 'C', 'D'], next: ['B', 'D'] } })
        t.same(followed.map((e) => [e.type, e.followed]), [['A', true], ['B', false], ['C', true], ['D', false]],
          'readAllForProjection: followedBy marks the events whose next event in their stream is of the types named')
        t.same((await store.readAllForProjection({ after: before, categories: [category], followedBy: { of: ['A'], next: ['D'] } })).map((e) => e.followed),
          [false, false, false, false], 'and only those: the next event of another type, or of another stream, does not')
        t.equal(followed.every((e, i) => e.id === full[i]?.id), true, 'the same events, in order')
      }
      if (store.categoryHead !== undefined) {
        const last = (await store.readAll({ after: before, categories: [category] })).at(-1)!
        t.same(await store.categoryHead(category), last.position, 'categoryHead: the position of the category\'s last event')
        t.equal(await store.categoryHead(`none${run}`), null, 'categoryHead: null for a category with no event')
        await store.appendToStream(stream(`b${run}`), [event('E')], { expectedRevision: 'no_stream' })
        t.same(await store.categoryHead(category), last.position, 'categoryHead: another category\'s append does not move it')
      }
      if (store.gaps !== undefined) t.same(await store.gaps(), { missing: 0, firstMissing: [] }, 'gaps: an untouched log has none')
      if (store.stats !== undefined) t.ok(store.stats().appends >= 3, 'stats: appends are counted')
    })

    if (subject.reopen !== undefined) {
      const reopen = subject.reopen
      t.test('reopening after close keeps everything', async (t) => {
        const other = await subject.open()
        const name = stream()
        const first = event()
        await other.appendToStream(name, [first, event()], { expectedRevision: 'no_stream' })
        const before = await other.readStream(name)
        const head = await other.headPosition()
        await other.close()
        const again = await reopen()
        t.teardown(() => again.close())
        t.same(await again.readStream(name), before, 'the stream is intact')
        t.same(await again.headPosition(), head, 'the head is where it was')
        t.equal((await again.appendToStream(name, [event()], { expectedRevision: 1 })).nextExpectedRevision, 2,
          'revisions continue')
        t.same(await again.appendToStream(name, [first], { expectedRevision: 'no_stream' }),
          { nextExpectedRevision: 0, position: before[0]!.position }, 're-append stays idempotent across restarts')
      })
    }
  })
}
