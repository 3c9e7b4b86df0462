import t from 'tap'
import { SCHEMA_VERSION, type OpenedOrderEvent, type ValidDelivery } from '@waybill/domain'
import { openMemoryKeyStore, sealDelivery } from '@waybill/personal-data'
import { MESSAGE_TYPES, webhookMessage, type WebhookMessage } from '../../src/index.js'
import { readMessageEvent, type MessageSource } from '../../src/message/message-event.js'
import { payload, PLAIN_KEYS, TEST_POD } from '../helpers.js'

const stored = (type: string, data: Record<string, unknown>, extra: Partial<MessageSource> = {}): MessageSource => ({
  streamName: 'order-acme-ORD/1 x', id: '6f3c1b62-5c3c-5b8e-9a4e-0d7e2c1f4a10', type, data, revision: 2,
  metadata: { received_at: '2026-03-03T15:41:08.123Z', key_id: 'k1', request_id: 'r1', schema_version: 1, prev_hash: 'ab' }, ...extra,
})

/** What the deliverer sends for a stored event: read, then made into a message. */
function messageOf(source: MessageSource): WebhookMessage {
  const { envelope, event } = readMessageEvent(source, PLAIN_KEYS)
  return webhookMessage(envelope, event)
}

t.test('a message per stored order event: type, acceptance time, account, order, event and its fields', async (t) => {
  t.same(messageOf(stored('OrderAdded', payload('ORDER_ADD', 'ORD/1 x'))), {
    type: 'order.added',
    timestamp: '2026-03-03T15:41:08.123Z',
    data: {
      account: 'acme', order_id: 'ORD/1 x', event_type: 'OrderAdded', event_id: '6f3c1b62-5c3c-5b8e-9a4e-0d7e2c1f4a10', revision: 2,
      event_date: '2025-01-01T00:00:00Z', customer: 'c-1', location: 'l-1', status: 'pending', address: '1 Main St', delivery_date: '2025-01-01T00:00:00Z',
    },
  })
  t.match(messageOf(stored('OrderUpdated', payload('ORDER_UPDATE', 'ORD/1 x', 3))), { type: 'order.updated', data: { status: 'in_progress', address: '3 Side St' } })
  t.match(messageOf(stored('OrderCanceled', payload('ORDER_CANCELED', 'ORD/1 x'))), { type: 'order.canceled', data: { reason: 'customer asked' } })
  t.same(Object.keys(MESSAGE_TYPES), ['OrderAdded', 'OrderUpdated', 'OrderCompleted', 'OrderCanceled', 'PersonalDataErased'])
})

t.test('images are links to the read API with what checks their bytes, never the bytes', async (t) => {
  const signature = { ...TEST_POD, sha256: 'b'.repeat(64), media_type: 'image/webp' as const }
  const message = messageOf(stored('OrderCompleted', { ...payload('ORDER_COMPLETE', 'ORD/1 x'), signature }))
  t.same(message.data['pod'], { url: '/v1/orders/ORD%2F1%20x/pod', sha256: 'a'.repeat(64), media_type: 'image/png', bytes: 68 })
  t.same(message.data['signature'], { url: '/v1/orders/ORD%2F1%20x/signature', sha256: 'b'.repeat(64), media_type: 'image/webp', bytes: 68 })
  t.equal(message.data['recipient'], 'R. Cipient')
  const without = messageOf(stored('OrderCompleted', payload('ORDER_COMPLETE', 'ORD/1 x')))
  t.notOk('signature' in without.data, 'no signature link when none was sent')
  t.ok(JSON.stringify(message).length < 1000, 'small')
})

t.test('the message carries the fields it is given, and nothing of the stored event besides its place in the log', async (t) => {
  // The seam a caller that changes the fields (opening sealed ones, or their erased form) feeds.
  const envelope = { account: 'acme', orderId: 'D-1', eventId: 'e-1', revision: 0, receivedAt: '2026-03-03T15:41:08.123Z' }
  const given = { type: 'OrderAdded', data: { ...payload('ORDER_ADD', 'D-1'), customer: null, location: null, address: null }, erased: true } as unknown as OpenedOrderEvent
  const message = webhookMessage(envelope, given)
  t.match(message.data, { customer: null, location: null, address: null, status: 'pending' })
  t.notMatch(JSON.stringify(message), /c-1|l-1|1 Main St/, 'no value the caller did not give')
  t.same(Object.keys(message.data).slice(0, 5), ['account', 'order_id', 'event_type', 'event_id', 'revision'])
})

t.test('an event with no received_at is dated by its event_date; what is not an order event of a known type is refused', async (t) => {
  t.equal(messageOf(stored('OrderCanceled', payload('ORDER_CANCELED', 'x'), { metadata: { prev_hash: null } })).timestamp, '2025-01-01T00:00:00Z')
  t.throws(() => readMessageEvent(stored('OrderShipped', {}), PLAIN_KEYS), { name: 'TypeError', message: /not an order event this Waybill knows \(OrderShipped\)/ })
  t.throws(() => readMessageEvent(stored('KeyIssued', {}, { streamName: 'apikey-k1' }), PLAIN_KEYS), TypeError)
  t.throws(() => readMessageEvent(stored('OrderAdded', payload('ORDER_ADD', 'x'), { metadata: { schema_version: 99, prev_hash: null } }), PLAIN_KEYS), { name: 'NewerEventError' })
})

t.test('a sealed event is sent opened with its order\'s key; once the key is destroyed, with its personal fields null; the erasure itself is a message', async (t) => {
  const keys = openMemoryKeyStore()
  const { event_date, ...fields } = payload('ORDER_ADD', 'S-1')
  const sealed = await sealDelivery(keys, 'acme', { event: 'ORDER_ADD', event_date, payload: fields } as unknown as ValidDelivery)
  if (!sealed.ok) throw new Error(sealed.refusal)
  const source = stored('OrderAdded', sealed.command.data as unknown as Record<string, unknown>, {
    streamName: 'order-acme-S-1', metadata: { received_at: '2026-03-03T15:41:08.123Z', schema_version: SCHEMA_VERSION, prev_hash: null },
  })
  t.notMatch(JSON.stringify(source.data), /c-1|1 Main St/, 'stored sealed')
  const sent = webhookMessage(...Object.values(readMessageEvent(source, keys)) as Parameters<typeof webhookMessage>)
  t.match(sent.data, { customer: 'c-1', location: 'l-1', address: '1 Main St', status: 'pending' }, 'opened when sent')
  await keys.erase('acme', ['S-1'], { at: '2026-04-01T00:00:00Z', scope: 'order', requestedBy: 'dpo', reason: 'ticket' })
  const again = webhookMessage(...Object.values(readMessageEvent(source, keys)) as Parameters<typeof webhookMessage>)
  t.match(again.data, { customer: null, location: null, address: null, status: 'pending' }, 'a retry or replay after the erasure carries nothing personal')
  t.notMatch(JSON.stringify(again), /c-1|l-1|1 Main St/)
  const erasure = stored('PersonalDataErased', { order_id: 'S-1', erased_at: '2026-04-01T00:00:00Z', scope: 'order', requested_by: 'dpo', reason: 'ticket' }, {
    streamName: 'order-acme-S-1', metadata: { received_at: '2026-04-01T00:00:00Z', schema_version: SCHEMA_VERSION, prev_hash: null },
  })
  t.match(webhookMessage(...Object.values(readMessageEvent(erasure, keys)) as Parameters<typeof webhookMessage>),
    { type: 'order.personal_data_erased', data: { order_id: 'S-1', erased_at: '2026-04-01T00:00:00Z', scope: 'order' } })
})
