/**
 * The EventStore contract, written once and run against every adapter. Each adapter's test file
 * calls `eventStoreContract(t, { name, open, reopen })`. Stream names and categories are fresh
 * per run and event ids are UUIDs, so the suite can run against a shared server with data in it.
 */
import { randomUUID } from 'node:crypto'
import type { Test } from 'tap'
import {
  comparePositions, type EventData, type EventStore, type ExpectedRevision, type RecordedEvent,
  verifyStreamChain, WrongExpectedVersionError,
} from '../src/index.js'

export interface ContractSubject {
  readonly name: string
  /** A store to test; the suite closes what it opens. */
  open(): Promise<EventStore>
  /** Opens the same store again after `close()` (same file, same server); omit to skip that test. */
  readonly reopen?: () => Promise<EventStore>
}

const RACERS = 50

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

    const rejects = async (t: Test, name: string, expected: ExpectedRevision, actual: number | 'no_stream'): Promise<void> => {
      const error = await store.appendToStream(name, [event()], { expectedRevision: expected }).then(
        () => null, (caught: unknown) => caught)
      t.ok(error instanceof WrongExpectedVersionError, `expected ${String(expected)} is refused`)
      const wrong = error as WrongExpectedVersionError
      t.equal(wrong.code, 'wrong_expected_version')
      t.equal(wrong.streamName, name)
      t.equal(wrong.expected, expected)
      t.equal(wrong.actual, actual, 'the error carries the actual revision')
    }

    t.test('expected revision: every case', async (t) => {
      const existing = stream()
      await store.appendToStream(existing, [event(), event()], { expectedRevision: 'no_stream' })

      t.test('no_stream: accepted on a new stream, refused on an existing one', async (t) => {
        t.equal((await store.appendToStream(stream(), [event()], { expectedRevision: 'no_stream' })).nextExpectedRevision, 0)
        await rejects(t, existing, 'no_stream', 1)
      })
      t.test('stream_exists: refused on a new stream, accepted on an existing one', async (t) => {
        await rejects(t, stream(), 'stream_exists', 'no_stream')
        const name = stream()
        await store.appendToStream(name, [event()], { expectedRevision: 'no_stream' })
        t.equal((await store.appendToStream(name, [event()], { expectedRevision: 'stream_exists' })).nextExpectedRevision, 1)
      })
      t.test('any: accepted on a new stream and on an existing one; the default', async (t) => {
        const name = stream()
        t.equal((await store.appendToStream(name, [event()], { expectedRevision: 'any' })).nextExpectedRevision, 0)
        t.equal((await store.appendToStream(name, [event()], { expectedRevision: 'any' })).nextExpectedRevision, 1)
        t.equal((await store.appendToStream(name, [event()])).nextExpectedRevision, 2)
      })
      t.test('exact revision: right is accepted; wrong, too high, or on no stream is refused', async (t) => {
        const name = stream()
        await store.appendToStream(name, [event(), event()], { expectedRevision: 'no_stream' })
        await rejects(t, name, 0, 1)
        await rejects(t, name, 5, 1)
        await rejects(t, stream(), 0, 'no_stream')
        t.equal((await store.appendToStream(name, [event()], { expectedRevision: 1 })).nextExpectedRevision, 2)
        t.equal((await store.readStream(name)).length, 3, 'refused appends wrote nothing')
      })
    })

    t.test(`${RACERS} racing appends with no_stream: exactly one wins`, async (t) => {
      const name = stream()
      const racers = Array.from({ length: RACERS }, () => event())
      const results = await Promise.allSettled(
        racers.map((racer) => store.appendToStream(name, [racer], { expectedRevision: 'no_stream' })))
      const winners = results.flatMap((result, i) => (result.status === 'fulfilled' ? [racers[i]!.id] : []))
      const losers = results.filter((result) => result.status === 'rejected')
      t.equal(winners.length, 1, 'one append wins')
      t.equal(losers.length, RACERS - 1)
      t.ok(losers.every((loser) => loser.reason instanceof WrongExpectedVersionError && loser.reason.actual === 0),
        'every loser sees the winner at revision 0')
      t.same((await store.readStream(name)).map((e) => e.id), winners, 'the stream holds the winner only')
    })

    t.test('idempotent re-append', async (t) => {
      const name = stream()
      const pair = [event('A'), event('B')]
      const first = await store.appendToStream(name, pair, { expectedRevision: 'no_stream' })

      t.same(await store.appendToStream(name, pair, { expectedRevision: 'no_stream' }), first,
        'the same ids at the same place answer as the first append did')
      t.same(await store.appendToStream(name, pair, { expectedRevision: 'any' }), first, 'with any, too')

      const third = event('C')
      const appended = await store.appendToStream(name, [third], { expectedRevision: 1 })
      t.same(await store.appendToStream(name, [third], { expectedRevision: 1 }), appended, 'with an exact revision')
      const after = await store.readStream(name)
      t.same(after.map((e) => e.id), [...pair, third].map((e) => e.id), 'nothing was written twice')

      await rejects(t, name, 0, 2)
      const misplaced = await store.appendToStream(name, [third], { expectedRevision: 0 }).then(() => null, (e: unknown) => e)
      t.ok(misplaced instanceof WrongExpectedVersionError, 'the same id expected at another place is a conflict')
      t.equal((await store.readStream(name)).length, 3)
    })

    t.test('readAll reads strictly after a position, in order, by category, in batches', async (t) => {
      const category = `r${run}`
      const before = await store.headPosition()
      const names = [stream(category), stream(category)]
      const written = [event(), event(), event()]
      await store.appendToStream(names[0]!, [written[0]!], { expectedRevision: 'no_stream' })
      await store.appendToStream(stream(), [event()], { expectedRevision: 'no_stream' })
      await store.appendToStream(names[1]!, [written[1]!], { expectedRevision: 'no_stream' })
      await store.appendToStream(names[0]!, [written[2]!], { expectedRevision: 0 })

      const head = await store.headPosition()
      t.ok(head !== null && (before === null || comparePositions(head, before) > 0), 'the head moved')
      const mine = await store.readAll({ after: before, categories: [category] })
      t.same(mine.map((e) => e.id), written.map((e) => e.id), 'only the category asked for, in log order')
      t.same(mine.at(-1)!.position, head, 'the head is the last event written')

      const afterFirst = await store.readAll({ after: mine[0]!.position, categories: [category] })
      t.same(afterFirst.map((e) => e.id), written.slice(1).map((e) => e.id), 'after is exclusive')
      const one = await store.readAll({ after: before, categories: [category], maxCount: 1 })
      t.same(one.map((e) => e.id), [written[0]!.id], 'maxCount bounds the batch')
      t.same(await store.readAll({ after: head, categories: [category] }), [], 'nothing after the head')

      const unfiltered = await store.readAll({ after: mine[0]!.position, maxCount: 10 })
      t.ok(unfiltered.every((e, i) => comparePositions(e.position, i === 0 ? mine[0]!.position : unfiltered[i - 1]!.position) > 0),
        'the whole log reads in increasing positions')
      t.same(unfiltered.filter((e) => e.streamName.startsWith(`${category}-`)).map((e) => e.id),
        written.slice(1).map((e) => e.id))
      t.ok(unfiltered.some((e) => !e.streamName.startsWith(`${category}-`)), 'without categories, every stream is read')
    })

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
          streamName: e.streamName, type: e.type, data: e.data, metadata: { request_id: e.metadata.request_id },
          revision: e.revision, position: e.position,
        })), 'readAllForProjection: the events readAll reads, with only the metadata asked for')
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
