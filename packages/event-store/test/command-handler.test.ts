import t from 'tap'
import {
  eventIdFor, orderDecider, type OrderCommand, streamNameFor, type UpdateOrder, type WireEvent,
} from '@waybill/domain'
import { type EventStore, handleCommand, StoreUnavailableError, WrongExpectedVersionError } from '../src/index.js'
import { freshStore } from './store-fixture.js'

const ACCOUNT = 'acme'
const metadata = { received_at: '2025-02-27T08:00:01Z', key_id: 'key-1', request_id: 'req-1', schema_version: 1 }

function command<C extends OrderCommand>(type: WireEvent, data: C['data']): C {
  return { type, data, eventId: eventIdFor(ACCOUNT, type, data) } as C
}
const add = (orderId: string): OrderCommand => command('ORDER_ADD', {
  order_id: orderId, customer: 'C-7', location: 'L-3', status: 'pending', address: '1 Quay Street',
  delivery_date: '2025-03-01T10:00:00Z', event_date: '2025-02-27T08:00:00Z',
})
const update = (orderId: string, address: string): UpdateOrder => command('ORDER_UPDATE', {
  order_id: orderId, status: 'in_progress', address, delivery_date: '2025-03-02T11:00:00Z', event_date: '2025-02-28T09:00:00Z',
})
const cancel = (orderId: string): OrderCommand => command('ORDER_CANCELED', {
  order_id: orderId, reason: 'customer moved', event_date: '2025-02-28T10:00:00Z',
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
  const other = command<OrderCommand>('ORDER_ADD', { ...add('A-2').data, customer: 'C-8' })
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
  t.same((await store.readStream(stream)).map((e) => e.data['address']), ['1 Quay Street', 'other', 'twin'])
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
  t.equal((await store.readStream(stream)).at(-1)!.data['address'], 'mine')
})

t.test('an unavailable store is not a decision: the error passes through', async (t) => {
  const store = await freshStore(t)
  await store.close()
  await t.rejects(handleCommand(store, streamNameFor(ACCOUNT, 'A-6'), orderDecider, add('A-6'), { metadata }),
    StoreUnavailableError)
})
