import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { startWebhookDeliverer, WebhookAdmin, type DeliveryAttempt, type EndpointSummary } from '@waybill/webhooks'
import { testApp } from '../../helpers/app.js'

const AUDITOR = '*|orders:audit'
const ADD = { event: 'ORDER_ADD', event_date: '2025-03-01T10:00:00Z' }

t.test('the webhook routes: endpoints (never a secret) and the delivery log, for auditor keys only', async (t) => {
  const app = await testApp(t)
  // A receiver that refuses the first two requests. The schedule is short, so that the retries
  // come at once; the endpoint is disabled only after a minute of failures, not after the 30 ms
  // the schedule spans (two attempts on a busy machine can be further apart than that).
  let n = 0
  const receiver = createServer((request, response) => {
    request.resume()
    request.on('end', () => { response.writeHead(n++ < 2 ? 503 : 204).end(n <= 2 ? 'try later' : '') })
  })
  receiver.listen(0, '127.0.0.1')
  await once(receiver, 'listening')
  t.teardown(() => { receiver.closeAllConnections(); receiver.close() })

  t.same((await app.get('/v1/webhooks/endpoints', AUDITOR)).json(), { endpoints: [] }, 'no webhooks file yet: none')
  const admin = WebhookAdmin.open(app.dataDir)
  t.teardown(() => admin.close())
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/in`
  const { id, secret } = admin.add({ url: new URL(url), account: 'acme', events: ['OrderAdded'], head: await app.store.headPosition() })
  const idle = admin.add({ url: new URL('https://hooks.example.com/waybill'), account: null, events: null, head: null })
  admin.disable(idle.id)
  const deliverer = startWebhookDeliverer({ store: app.store, keys: app.readSide.subjectKeys, dataDir: app.dataDir, refreshMs: 20, settings: { retry: { schedule: [10, 10, 10], disableAfterMs: 60_000 }, pollMs: 20, concurrency: 1 } })
  t.teardown(() => deliverer.stop())
  for (const order of ['w-1', 'w-2']) {
    t.equal((await app.post('/v1/deliveries', { ...ADD, event_payload: { order_id: order, customer: 'c', location: 'l', status: 'pending', address: '1 Main', delivery_date: '2025-03-02T10:00:00Z' } }, 'acme|orders:add')).statusCode, 201)
  }
  const deadline = Date.now() + 10_000
  while (deliverer.status().find((s) => s.id === id)?.attempts.delivered !== 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))

  const listed = await app.get('/v1/webhooks/endpoints', AUDITOR)
  t.equal(listed.statusCode, 200)
  t.notOk(listed.body.includes(secret) || listed.body.includes('whsec_'), 'no secret is ever shown')
  const endpoints = listed.json<{ endpoints: EndpointSummary[] }>().endpoints
  t.match(endpoints, [
    { id, url, account: 'acme', events: ['ORDER_ADD'], state: 'enabled', backlog: 0, last_success_at: /^20/, signing_secrets: 1 },
    { id: idle.id, account: null, events: null, state: 'disabled', disabled_reason: 'disabled by the operator', backlog: 2 },
  ])

  const page = (await app.get('/v1/webhooks/deliveries?limit=3', AUDITOR)).json<{ deliveries: DeliveryAttempt[]; next_cursor: string | null }>()
  t.equal(page.deliveries.length, 3)
  t.match(page.deliveries[0], { endpoint_id: id, account: 'acme', order_id: /^w-/, event_type: 'OrderAdded', outcome: 'delivered', status: 204, error: null })
  t.ok(page.deliveries[0]!.id > page.deliveries[2]!.id, 'newest first')
  const rest = (await app.get(`/v1/webhooks/deliveries?limit=3&before=${page.next_cursor ?? ''}`, AUDITOR)).json<{ deliveries: DeliveryAttempt[]; next_cursor: string | null }>()
  t.equal(rest.deliveries.length, 1)
  t.equal(rest.next_cursor, null)
  const failed = (await app.get(`/v1/webhooks/deliveries?endpoint=${id}&failed=true`, AUDITOR)).json<{ deliveries: DeliveryAttempt[] }>()
  t.match(failed.deliveries, [{ outcome: 'failed', status: 503, error: 'HTTP 503: try later' }, { outcome: 'failed', status: 503 }])
  t.same((await app.get(`/v1/webhooks/deliveries?endpoint=${idle.id}`, AUDITOR)).json(), { deliveries: [], next_cursor: null })

  for (const [query, detail] of [['endpoint=7', /endpoint: must be an endpoint id/], ['failed=yes', /failed: must be true or false/], ['limit=0', /limit: must be at least 1/], ['colour=red', /not a parameter of the delivery log/]] as const) {
    const refused = await app.get(`/v1/webhooks/deliveries?${query}`, AUDITOR)
    t.equal(refused.statusCode, 400, query)
    t.match(refused.json(), { code: 'bad_request', detail }, query)
  }
  for (const path of ['/v1/webhooks/endpoints', '/v1/webhooks/deliveries']) {
    t.equal((await app.get(path, null)).statusCode, 401, `${path}: no key`)
    t.match((await app.get(path, 'acme|orders:read')).json(), { status: 403, code: 'api_key_forbidden', detail: 'This key lacks the orders:audit scope' }, `${path}: an account's key`)
    t.equal((await app.get(`${path}?colour=red`, 'acme|orders:read')).statusCode, 403, `${path}: the scope is checked before the query`)
  }
})
