import t from 'tap'
import {
  eventIdFor, orderDecider, type OrderCommand, SCHEMA_VERSION, streamNameFor, type UpdateOrder, type WireEvent,
} from '@waybill/domain'
import { type EventStore, handleCommand, StoreUnavailableError, StreamStates, WrongExpectedVersionError } from '../src/index.js'
import type { OrderState } from '@waybill/domain'
import { freshStore } from './store-fixture.js'

const ACCOUNT = 'acme'
const metadata = { received_at: '2025-02-27T08:00:01Z', key_id: 'key-1', request_id: 'req-1', schema_version: SCHEMA_VERSION }

/** A stand-in for a sealed personal part: the store and the decider never open it; the tests read `box`. */
const sealed = (box: string) => ({ key: 'order-key', iv: 'aXY', box })
const boxOf = (data: Record<string, unknown>): unknown => (data['personal'] as { box?: unknown } | undefined)?.box

function command<C extends OrderCommand>(type: WireEvent, data: C['data']): C {
  return { type, data, eventId: eventIdFor(ACCOUNT, type, data) } as C
}
const add = (orderId: string): OrderCommand => command('ORDER_ADD', {
  order_id: orderId, status: 'pending', personal: sealed('1 Quay Street'),
  delivery_date: '2025-03-01T10:00:00Z', event_date: '2025-02-27T08:00:00Z',
})
const update = (orderId: string, address: string): UpdateOrder => command('ORDER_UPDATE', {
  order_id: orderId, status: 'in_progress', personal: sealed(address), delivery_date: '2025-03-02T11:00:00Z', event_date: '2025-02-28T09:00:00Z',
})
const cancel = (orderId: string): OrderCommand => command('ORDER_CANCELED', {
  order_id: orderId, personal: sealed('customer moved'), event_date: '2025-02-28T10:00:00Z',
})

t.test('a new order is appended at revision 0 with its metadata', async (t) => {
  const store = await freshStore(t)
  const stream = streamNameFor(ACCOUNT, 'A-1')
  const result = await handleCommand(store, stream, orderDecider, add('A-1'), { metadata })
  t.equal(result.outcome, 'appended')
  const events = await store.readStream(stream)
  t.same(events.map((e) => [e.revision, e.type, e.id]), [[0, 'OrderAdded', add('A-1').eventId]])
  t.same(events[0]!.metadata, { ...metadata, prev_hash: null })
  t.same(result, { outcome: 'appended', events: [{ type: 'OrderAdded', data: add('A-1').data, id: add('A-1').eventId }],
    position: events[0]!.position, nextExpectedRevision: 0 })
})

t.test('the rules of the decider come back as outcomes, and write nothing', async (t) => {
  const store = await freshStore(t)
  const stream = streamNameFor(ACCOUNT, 'A-2')
  t.same(await handleCommand(store, stream, orderDecider, update('A-2', 'x'), { metadata }),
    { outcome: 'rejected', error: 'not_found' })
  await handleCommand(store, stream, orderDecider, add('A-2'), { metadata })
  t.same(await handleCommand(store, stream, orderDecider, add('A-2'), { metadata }), { outcome: 'already_applied' },
    'an exact retry is already applied')
  const other = command<OrderCommand>('ORDER_ADD', { ...add('A-2').data, personal: sealed('C-8') })
  t.same(await handleCommand(store, stream, orderDecider, other, { metadata }), { outcome: 'rejected', error: 'conflict' })
  t.equal((await handleCommand(store, stream, orderDecider, cancel('A-2'), { metadata })).outcome, 'appended')
  t.same(await handleCommand(store, stream, orderDecider, update('A-2', 'y'), { metadata }),
    { outcome: 'rejected', error: 'locked' })
  t.same((await store.readStream(stream)).map((e) => e.type), ['OrderAdded', 'OrderCanceled'])
})

t.test('identical retries racing: both answer success, one event is stored', async (t) => {
  const store = await freshStore(t)
  const stream = streamNameFor(ACCOUNT, 'A-3')
  const results = await Promise.all(Array.from({ length: 8 }, () =>
    handleCommand(store, stream, orderDecider, add('A-3'), { metadata })))
  t.ok(results.every((r) => r.outcome === 'appended' || r.outcome === 'already_applied'), 'no retry fails')
  t.equal((await store.readStream(stream)).length, 1)
})

/** The real store, with a gate before readStream returns: lets a test interleave other writers. */
function withGatedRead(store: EventStore, beforeReturn: () => Promise<void>): EventStore {
  return {
    appendToStream: (...args) => store.appendToStream(...args),
    readStream: async (...args) => {
      const events = await store.readStream(...args)
      await beforeReturn()
      return events
    },
    readAll: (...args) => store.readAll(...args),
    headPosition: () => store.headPosition(),
    close: () => store.close(),
  }
}

t.test('a retry that lost its race to a twin re-reads and finds itself already applied', async (t) => {
  const store = await freshStore(t)
  const stream = streamNameFor(ACCOUNT, 'A-4')
  await handleCommand(store, stream, orderDecider, add('A-4'), { metadata })
  const twin = update('A-4', 'twin')
  let reads = 0
  // While the first read is held: another update lands, then the twin (reading the newer
  // stream) lands after it, so the held handler's append expects the twin's place wrongly.
  const gated = withGatedRead(store, async () => {
    reads += 1
    if (reads > 1) return
    await handleCommand(store, stream, orderDecider, update('A-4', 'other'), { metadata })
    await handleCommand(store, stream, orderDecider, twin, { metadata })
  })
  t.same(await handleCommand(gated, stream, orderDecider, twin, { metadata }), { outcome: 'already_applied' })
  t.equal(reads, 2, 'it read twice: the append conflicted once')
  t.same((await store.readStream(stream)).map((e) => boxOf(e.data)), ['1 Quay Street', 'other', 'twin'])
})

t.test('a conflict re-reads and decides again, up to maxAttempts, then throws', async (t) => {
  const store = await freshStore(t)
  const stream = streamNameFor(ACCOUNT, 'A-5')
  await handleCommand(store, stream, orderDecider, add('A-5'), { metadata })
  let reads = 0
  const contended = withGatedRead(store, async () => {
    reads += 1
    await handleCommand(store, stream, orderDecider, update('A-5', `rival ${reads}`), { metadata })
  })
  const error = await handleCommand(contended, stream, orderDecider, update('A-5', 'mine'), { metadata, maxAttempts: 3 })
    .then(() => null, (caught: unknown) => caught)
  t.ok(error instanceof WrongExpectedVersionError, 'the last conflict is thrown')
  t.equal(reads, 3, 'three rounds')

  reads = 0
  let rivals = 1
  const onceContended = withGatedRead(store, async () => {
    reads += 1
    if (rivals-- > 0) await handleCommand(store, stream, orderDecider, update('A-5', 'late rival'), { metadata })
  })
  const result = await handleCommand(onceContended, stream, orderDecider, update('A-5', 'mine'), { metadata })
  t.equal(result.outcome, 'appended', 'the second round succeeds')
  t.equal(reads, 2)
  t.equal(boxOf((await store.readStream(stream)).at(-1)!.data), 'mine')
})

t.test('an unavailable store is not a decision: the error passes through', async (t) => {
  const store = await freshStore(t)
  await store.close()
  await t.rejects(handleCommand(store, streamNameFor(ACCOUNT, 'A-6'), orderDecider, add('A-6'), { metadata }),
    StoreUnavailableError)
})

/** The real store, counting reads of streams. */
function counted(store: EventStore): EventStore & { reads: number } {
  const counting = {
    reads: 0,
    appendToStream: (...args: Parameters<EventStore['appendToStream']>) => store.appendToStream(...args),
    readStream: (...args: Parameters<EventStore['readStream']>) => {
      counting.reads += 1
      return store.readStream(...args)
    },
    readAll: (...args: Parameters<EventStore['readAll']>) => store.readAll(...args),
    headPosition: () => store.headPosition(),
    close: () => store.close(),
  }
  return counting
}

t.test('with known states: a new order and the next events of a known one are decided without a read', async (t) => {
  const store = counted(await freshStore(t))
  const states = new StreamStates<OrderState>()
  const stream = streamNameFor(ACCOUNT, 'S-1')
  t.equal((await handleCommand(store, stream, orderDecider, add('S-1'), { metadata }, states)).outcome, 'appended')
  t.equal((await handleCommand(store, stream, orderDecider, update('S-1', 'x'), { metadata }, states)).outcome, 'appended')
  t.equal((await handleCommand(store, stream, orderDecider, cancel('S-1'), { metadata }, states)).outcome, 'appended')
  t.equal(store.reads, 0, 'no stream was read')
  t.same((await store.readStream(stream)).map((e) => [e.revision, e.type]), [[0, 'OrderAdded'], [1, 'OrderUpdated'], [2, 'OrderCanceled']])
  t.same(states.get(stream)?.revision, 2)
  const known = states.get(stream)?.state
  t.equal(known?.exists === true ? known.status : null, 'canceled')
})

t.test('with known states: answers that append nothing come from a fresh read, never from the cache', async (t) => {
  const store = counted(await freshStore(t))
  const states = new StreamStates<OrderState>()
  const stream = streamNameFor(ACCOUNT, 'S-2')
  t.same(await handleCommand(store, stream, orderDecider, update('S-2', 'x'), { metadata }, states), { outcome: 'rejected', error: 'not_found' })
  t.equal(store.reads, 1, 'an update of an unknown order: the guess (no stream) would reject it, so the stream is read')
  await handleCommand(store, stream, orderDecider, add('S-2'), { metadata }, states)
  // Another process completes the order behind this cache's back: the cache still says pending.
  await handleCommand(store, stream, orderDecider, cancel('S-2'), { metadata })
  states.set(stream, { state: states.get(stream)!.state, revision: 0 })
  const reads = store.reads
  t.same(await handleCommand(store, stream, orderDecider, add('S-2'), { metadata }, states), { outcome: 'already_applied' },
    'an exact retry is answered after a read')
  t.equal(store.reads, reads + 1)
  t.same(await handleCommand(store, stream, orderDecider, update('S-2', 'y'), { metadata }, states), { outcome: 'rejected', error: 'locked' },
    'the read state is cached now, and a rejection is still read afresh')
  t.equal(store.reads, reads + 2)
})

t.test('with known states: a stale guess is refused by the store, then decided again on a read, and not counted as a round', async (t) => {
  const raw = await freshStore(t)
  const store = counted(raw)
  const states = new StreamStates<OrderState>()
  const stream = streamNameFor(ACCOUNT, 'S-3')
  await handleCommand(store, stream, orderDecider, add('S-3'), { metadata }, states)
  // Another instance appends an update: this cache still holds revision 0.
  await handleCommand(raw, stream, orderDecider, update('S-3', 'elsewhere'), { metadata })
  const result = await handleCommand(store, stream, orderDecider, update('S-3', 'here'), { metadata, maxAttempts: 1 }, states)
  t.equal(result.outcome, 'appended', 'the refused guess did not use up the one round allowed')
  t.equal(store.reads, 1)
  t.same((await raw.readStream(stream)).map((e) => boxOf(e.data)), ['1 Quay Street', 'elsewhere', 'here'])
  t.equal(states.get(stream)?.revision, 2)

  // A new order's id already taken elsewhere: the guess "no stream" is refused, the read decides.
  const other = streamNameFor(ACCOUNT, 'S-4')
  await handleCommand(raw, other, orderDecider, add('S-4'), { metadata })
  // The store finds the same event id where the guess put it and answers as for an identical
  // append that won a race: a success naming the stored event, as an exact retry is answered.
  const retried = await handleCommand(store, other, orderDecider, add('S-4'), { metadata }, states)
  t.ok(retried.outcome === 'appended' || retried.outcome === 'already_applied', 'an exact retry succeeds')
  if (retried.outcome === 'appended') t.equal(retried.position.commit, (await raw.readStream(other))[0]!.position.commit, 'naming the stored event')
  const different = command<OrderCommand>('ORDER_ADD', { ...add('S-4').data, personal: sealed('C-9') })
  states.delete(other)
  t.same(await handleCommand(store, other, orderDecider, different, { metadata }, states), { outcome: 'rejected', error: 'conflict' })
  t.equal((await raw.readStream(other)).length, 1, 'nothing more was stored')
})

t.test('known states keep the most recently used streams up to their capacity', async (t) => {
  const states = new StreamStates<number>(2)
  states.set('a', { state: 1, revision: 0 })
  states.set('b', { state: 2, revision: 0 })
  t.equal(states.get('a')?.state, 1, 'a is now the most recent')
  states.set('c', { state: 3, revision: 'no_stream' })
  t.equal(states.size, 2)
  t.equal(states.get('b'), undefined, 'b, the least recently used, was dropped')
  t.same([states.get('a')?.state, states.get('c')?.state], [1, 3])
  states.set('a', { state: 4, revision: 1 })
  t.same(states.get('a'), { state: 4, revision: 1 })
  t.equal(states.size, 2)
})
