import t from 'tap'
import { erasePersonalData } from '@waybill/projector'
import { testApp } from '../../helpers/app.js'
import { addBody, completeBody, dataUrl, PNG, updateBody } from '../../fixtures.js'

t.test('an erased order: read as erased with its facts, its history marked, its images gone, no new event', async (t) => {
  const app = await testApp(t)
  const courier = 'sandbox|orders:add,orders:update,orders:complete,orders:cancel'
  t.equal((await app.post('/v1/deliveries', addBody('E-1', { customer: 'Erin Erased', location: 'Depot 9' }), courier)).statusCode, 201)
  t.equal((await app.post('/v1/deliveries', completeBody('E-1', { recipient: 'Erin', pod: dataUrl('image/png', PNG) }), courier)).statusCode, 202)
  t.equal((await app.post('/v1/deliveries', addBody('K-1', { customer: 'Kim Kept' }), courier)).statusCode, 201)
  const keyOf = app.readSide.subjectKeys
  await erasePersonalData({ store: app.store, keys: keyOf, blobs: app.blobs, now: () => new Date('2026-03-01T00:00:00Z') },
    { account: 'sandbox', target: { order: 'E-1' }, requestedBy: 'dpo', reason: 'ticket 1' })
  await app.project()

  const order = (await app.get('/v1/orders/E-1', 'sandbox|orders:read')).json<Record<string, unknown>>()
  t.match(order, { order_id: 'E-1', status: 'completed', customer: null, location: null, address: null, recipient: null, pod: null, erased_at: '2026-03-01T00:00:00.000Z' })
  t.match((await app.get('/v1/orders/K-1', 'sandbox|orders:read')).json(), { customer: 'Kim Kept', erased_at: null }, 'another order untouched')

  const history = (await app.get('/v1/orders/E-1/events', 'sandbox|orders:read')).json<{ events: Array<Record<string, unknown>>; chain: unknown }>()
  t.same(history.events.map((event) => event.type), ['OrderAdded', 'OrderCompleted', 'PersonalDataErased'])
  t.same(history.events.map((event) => event.erased), [true, true, false], 'each personal event marked erased')
  t.match(history.events[0]?.fields, { order_id: 'E-1', customer: null, location: null, address: null, event_date: String, status: 'pending' })
  t.match(history.events[2]?.data, { order_id: 'E-1', scope: 'order', requested_by: 'dpo', reason: 'ticket 1' })
  t.same(history.chain, { ok: true }, 'the chain still holds')
  t.match(history.events[1]?.state_after, { status: 'completed', recipient: null })

  const pod = await app.get('/v1/orders/E-1/pod', 'sandbox|orders:read')
  t.equal(pod.statusCode, 404)
  t.match(pod.json(), { code: 'not_found', detail: /erased/ })

  const update = await app.post('/v1/deliveries', updateBody('E-1'), courier)
  t.equal(update.statusCode, 409)
  t.match(update.json(), { code: 'locked' })
  const again = await app.post('/v1/deliveries', addBody('E-1', { customer: 'Erin Erased' }), courier)
  t.equal(again.statusCode, 409)
  t.match(again.json(), { code: 'conflict' })
})
