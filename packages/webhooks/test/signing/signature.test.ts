import t from 'tap'
import { Webhook } from 'standardwebhooks'
import { signatureHeader, webhookIdFor } from '../../src/index.js'

// The reference library is the judge: Waybill's signatures are checked with it, never with Waybill's own code.
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'
const OTHER = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD'

t.test('a v1 signature over id.timestamp.body verifies with the standardwebhooks library', async (t) => {
  const body = JSON.stringify({ type: 'order.added', timestamp: '2026-03-02T08:15:00.000Z', data: { order_id: 'ORD-1' } })
  const timestamp = Math.floor(Date.now() / 1000)
  const id = webhookIdFor('ep_0123456789abcdef', '6f3c1b62-5c3c-5b8e-9a4e-0d7e2c1f4a10')
  const headers = { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signatureHeader(id, timestamp, body, [SECRET]) }
  t.match(headers['webhook-signature'], /^v1,[A-Za-z0-9+/]{43}=$/)
  t.same(new Webhook(SECRET).verify(body, headers), JSON.parse(body))
  t.equal(headers['webhook-signature'], new Webhook(SECRET).sign(id, new Date(timestamp * 1000), body), 'the library signs the same')
  t.throws(() => new Webhook(OTHER).verify(body, headers), { message: 'No matching signature found' })
  t.throws(() => new Webhook(SECRET).verify(body.replace('ORD-1', 'ORD-2'), headers), { message: 'No matching signature found' }, 'a changed body fails')
  t.throws(() => new Webhook(SECRET).verify(body, { ...headers, 'webhook-id': `${id}x` }), { message: 'No matching signature found' }, 'another id fails')
})

t.test('two secrets sign side by side; a receiver holding either verifies', async (t) => {
  const body = '{"type":"order.updated"}'
  const timestamp = Math.floor(Date.now() / 1000)
  const signature = signatureHeader('msg_x', timestamp, body, [SECRET, OTHER])
  t.equal(signature.split(' ').length, 2)
  for (const secret of [SECRET, OTHER]) {
    t.ok(new Webhook(secret).verify(body, { 'webhook-id': 'msg_x', 'webhook-timestamp': String(timestamp), 'webhook-signature': signature }))
  }
})

t.test('the webhook-id is derived from the endpoint and the event: stable, and distinct per endpoint', async (t) => {
  const event = '6f3c1b62-5c3c-5b8e-9a4e-0d7e2c1f4a10'
  t.equal(webhookIdFor('ep_1', event), webhookIdFor('ep_1', event))
  t.not(webhookIdFor('ep_1', event), webhookIdFor('ep_2', event))
  t.not(webhookIdFor('ep_1', event), webhookIdFor('ep_1', event.replace('6f', '7f')))
  t.match(webhookIdFor('ep_1', event), /^msg_[A-Za-z0-9_-]{32}$/)
})
