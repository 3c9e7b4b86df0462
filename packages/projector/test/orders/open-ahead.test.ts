import { randomBytes } from 'node:crypto'
import t from 'tap'
import { SCHEMA_VERSION, streamNameFor, toCommand, upcastOrderEvent, type ValidDelivery } from '@waybill/domain'
import type { ProjectionEvent } from '@waybill/event-store'
import { MissingKeyError, openOrderEvent, OpeningThreads, orderSealer, SealBrokenError, type KeyLookup, type OrderKey } from '@waybill/personal-data'
import { openAhead } from '../../src/orders/open-ahead.js'

// The rebuild's opener with the batch opened ahead on a thread, against the per-event opener.
const keyOf = new Map<string, KeyLookup>()
const lookups: string[] = []
/** How many reads the key look-ups took. */
let reads = 0
const keys = {
  get: (account: string, orderId: string): KeyLookup => {
    reads += 1
    lookups.push(orderId)
    return keyOf.get(`${account}/${orderId}`) ?? null
  },
  getMany: (orders: ReadonlyArray<{ account: string; orderId: string }>): KeyLookup[] => {
    reads += 1
    lookups.push(...orders.map((order) => order.orderId))
    return orders.map((order) => keyOf.get(`${order.account}/${order.orderId}`) ?? null)
  },
}
let position = 0
const event = (account: string, orderId: string, type: string, valid: ValidDelivery, revision: number): ProjectionEvent => {
  let key = keyOf.get(`${account}/${orderId}`)
  if (key === undefined) keyOf.set(`${account}/${orderId}`, key = { id: `k-${account}-${orderId}`, secret: randomBytes(32) })
  const sealingKey: OrderKey = key === null || key === 'erased' ? { id: 'gone', secret: randomBytes(32) } : key
  position += 1
  return {
    streamName: streamNameFor(account, orderId), id: `e-${position}`, type, revision, position: { commit: BigInt(position), prepare: BigInt(position) },
    data: toCommand(account, valid, orderSealer(sealingKey, streamNameFor(account, orderId))).data as unknown as Record<string, unknown>,
    metadata: { schema_version: SCHEMA_VERSION },
  }
}
const add = (account: string, orderId: string): ProjectionEvent => event(account, orderId, 'OrderAdded', {
  event: 'ORDER_ADD', event_date: '2025-01-01T00:00:00Z',
  payload: { order_id: orderId, customer: `c-${orderId}`, location: 'l', status: 'pending', address: 'a', delivery_date: '2025-01-05T00:00:00Z' },
}, 0)
const update = (account: string, orderId: string, address: string, revision: number): ProjectionEvent => event(account, orderId, 'OrderUpdated', {
  event: 'ORDER_UPDATE', event_date: '2025-01-02T00:00:00Z', payload: { order_id: orderId, status: 'in_progress', address, delivery_date: '2025-01-06T00:00:00Z' },
}, revision)

/** What the fold gets: the stored event, upcast. */
const stored = (e: ProjectionEvent) => upcastOrderEvent(e) as NonNullable<ReturnType<typeof upcastOrderEvent>>
const expected = (account: string, orderId: string, e: ProjectionEvent) => openOrderEvent(e.streamName, stored(e), keyOf.get(`${account}/${orderId}`) ?? null)

/** The threads, with what they answered recorded: a test of the opener must see that they opened. */
function recorded(thread: OpeningThreads): { thread: OpeningThreads; answers: Array<string | null> } {
  const answers: Array<string | null> = []
  const open = thread.open.bind(thread)
  thread.open = async (items) => {
    const texts = await open(items)
    answers.push(...texts)
    return texts
  }
  return { thread, answers }
}

t.test('each part opened ahead opens as openOrderEvent opens it; keys looked up once an order, for the thread and the caller alike', async (t) => {
  const { thread, answers } = recorded(new OpeningThreads(2))
  t.teardown(() => thread.close())
  lookups.length = 0
  reads = 0
  const ahead = openAhead(keys, thread)
  const first = [add('acme', 'o-1'), add('globex', 'o-1'), update('acme', 'o-1', 'b', 1)]
  const second = [update('globex', 'o-1', 'c', 1), add('acme', 'o-2'), update('acme', 'o-1', 'd', 2)]
  // Two batches prepared before the first is applied, as a rebuild reads ahead.
  const [one, two] = await Promise.all([ahead.prepare(first), ahead.prepare(second)])
  for (const [batch, ready] of [[first, one], [second, two]] as const) {
    for (const e of batch) {
      const [, account = '', orderId = ''] = /^order-([a-z]+)-(.+)$/.exec(e.streamName) ?? []
      t.same(ahead.open(account, orderId, stored(e)), expected(account, orderId, e), `${e.streamName} ${e.type}`)
    }
    ready.done()
  }
  t.same(lookups, ['o-1', 'o-1', 'o-2'], 'one look-up per order (acme and globex each have an o-1)')
  t.equal(reads, 2, 'the new orders of each batch in one read')
  t.equal(answers.length, 6)
  t.notOk(answers.includes(null), 'the thread opened every part')
  // Once its batch is done, a part is opened here: the same event, the same answer.
  t.same(ahead.open('acme', 'o-1', stored(first[0]!)), expected('acme', 'o-1', first[0]!))
})

t.test('what the thread cannot open is opened here, and throws here what it throws', async (t) => {
  const thread = new OpeningThreads(1)
  t.teardown(() => thread.close())
  const ahead = openAhead(keys, thread)
  const good = add('acme', 'o-10')
  const changed = update('acme', 'o-10', 'x', 1)
  const personal = changed.data.personal as { box: string }
  const flipped = Buffer.from(personal.box, 'base64url')
  flipped[0] = (flipped[0] as number) ^ 1
  const broken: ProjectionEvent = { ...changed, data: { ...changed.data, personal: { ...personal, box: flipped.toString('base64url') } } }
  const missing = add('acme', 'o-11')
  keyOf.delete('acme/o-11')
  const erased = add('acme', 'o-12')
  keyOf.set('acme/o-12', 'erased')
  const ready = await ahead.prepare([good, broken, missing, erased])
  t.same(ahead.open('acme', 'o-10', stored(good)), expected('acme', 'o-10', good))
  t.throws(() => ahead.open('acme', 'o-10', stored(broken)), SealBrokenError, 'a changed part')
  t.throws(() => ahead.open('acme', 'o-11', stored(missing)), MissingKeyError, 'an order the key store does not know')
  t.same(ahead.open('acme', 'o-12', stored(erased)), expected('acme', 'o-12', erased), 'an erased order: its personal fields null')
  t.equal(ahead.open('acme', 'o-12', stored(erased)).erased, true)
  ready.done()
})

t.test('a part copied into another order\'s event, or another type\'s, is not taken from what the thread opened', async (t) => {
  const { thread, answers } = recorded(new OpeningThreads(1))
  t.teardown(() => thread.close())
  const ahead = openAhead(keys, thread)
  const original = add('acme', 'o-30')
  const target = add('acme', 'o-31')
  const copied: ProjectionEvent = { ...target, data: { ...target.data, personal: original.data.personal } }
  const first = await ahead.prepare([original, copied])
  t.same(answers.map((text) => text !== null), [true], 'the original opened; the copy was not sent (o-31\'s key is another)')
  t.same(ahead.open('acme', 'o-30', stored(original)), expected('acme', 'o-30', original))
  t.throws(() => ahead.open('acme', 'o-31', stored(copied)), SealBrokenError, 'the copy throws as openOrderEvent throws')
  first.done()
  const update30 = update('acme', 'o-30', 'y', 1)
  const retyped: ProjectionEvent = { ...update30, data: { ...update30.data, personal: original.data.personal } }
  // The copy first, so that the original's opened text is the last one kept for that box.
  const second = await ahead.prepare([retyped, original])
  t.same(answers.slice(1).map((text) => text !== null), [false, true], 'in the update\'s context the part does not open')
  t.throws(() => ahead.open('acme', 'o-30', stored(retyped)), SealBrokenError, 'a part moved to another event type of the same order')
  second.done()
})

t.test('a thread that failed leaves its parts to be opened here', async (t) => {
  const thread = new OpeningThreads(1)
  const ahead = openAhead(keys, thread)
  await thread.close()
  const event = add('acme', 'o-20')
  const ready = await ahead.prepare([event])
  t.same(ahead.open('acme', 'o-20', stored(event)), expected('acme', 'o-20', event))
  ready.done()
})
