import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { Agent } from 'undici'
import { createWaybillClient, formBody } from '@waybill/client'
import { DELIVERY_EXAMPLES } from '@waybill/domain/wire'
import { startServe } from '../src/testing.js'

/*
 * The generated client against a real `waybill serve` over real HTTPS, as a courier's code runs
 * it: the four events, the event-id header matched with the order's history (the read API is
 * mounted by serve only), and a form body.
 */
t.test('the generated client sends the four events and reads the order back over HTTPS', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'waybill-client-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const server = await startServe({ WAYBILL_DATA_DIR: dir })
  t.teardown(() => server.stop())
  const agent = new Agent({ connect: { ca: await readFile(join(dir, 'tls', 'cert.pem'), 'utf8') } })
  t.teardown(() => agent.close())
  const apiKey = (await readFile(join(dir, 'test-api-key'), 'utf8')).trim()
  // Node's fetch is undici's: the dispatcher trusts the server's self-signed certificate.
  const client = createWaybillClient({ baseUrl: server.httpsUrl, apiKey, requestInitExt: { dispatcher: agent } })

  const { data: ping } = await client.GET('/ping')
  t.match(ping, { account: 'sandbox', test: true, scopes: ['orders:add', 'orders:update', 'orders:complete', 'orders:cancel', 'orders:read'] })

  const ids: string[] = []
  for (const [body, status] of [[DELIVERY_EXAMPLES.ORDER_ADD, 201], [DELIVERY_EXAMPLES.ORDER_UPDATE, 202]] as const) {
    const { response } = await client.POST('/v1/deliveries', { body })
    t.equal(response.status, status, body.event)
    ids.push(response.headers.get('waybill-event-id') ?? '')
  }
  const complete = await client.POST('/v1/deliveries', {
    body: DELIVERY_EXAMPLES.ORDER_COMPLETE, bodySerializer: formBody, headers: { 'content-type': 'application/x-www-form-urlencoded' },
  })
  t.equal(complete.response.status, 202, 'ORDER_COMPLETE, as a form body with its images')
  ids.push(complete.response.headers.get('waybill-event-id') ?? '')

  const orderId = DELIVERY_EXAMPLES.ORDER_ADD.event_payload.order_id
  const history = await client.GET('/v1/orders/{order_id}/events', { params: { path: { order_id: orderId } } })
  t.same(history.data?.events.map((event) => event.event_id), ids, 'each Waybill-Event-Id is the id of its entry in the history')

  const canceled = await client.POST('/v1/deliveries', { body: DELIVERY_EXAMPLES.ORDER_CANCELED })
  t.equal(canceled.response.status, 404, 'ORDER_CANCELED for an order never added')
  t.equal(canceled.error?.code, 'not_found')

  const wrong = await client.PUT('/v1/deliveries' as never, {} as never) as { response: Response }
  t.equal(wrong.response.status, 405)
  t.equal(wrong.response.headers.get('allow'), 'POST')
})
