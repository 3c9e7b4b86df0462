import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { createWaybillClient, formBody, type DeliveryRequest } from '@waybill/client'
import { streamNameFor } from '@waybill/domain'
import { DELIVERY_EXAMPLES } from '@waybill/domain/wire'
import { openFileBlobStore, openSqliteEventStore } from '@waybill/event-store'
import { buildApp } from '../src/index.js'
import { openReadSide } from './helpers/read-side.js'

/*
 * The delivery endpoint seen as a courier's generated client sees it: @waybill/client (generated
 * from the OpenAPI document the app serves) against the real app and a SQLite store on disk.
 * Requests go through `app.inject` (openapi-fetch takes a custom fetch): nothing here is about
 * sockets or TLS, which packages/http/test/*.e2e.test.ts cover.
 */
const dataDir = await mkdtemp(join(tmpdir(), 'waybill-client-'))
const store = await openSqliteEventStore({ path: join(dataDir, 'events.sqlite') })
const blobs = await openFileBlobStore(join(dataDir, 'blobs'))
// Load shedding lifted: this file is about the client, and a machine busy with other suites can
// hold the event loop past the default bound, which would answer 503 here.
const readSide = await openReadSide(dataDir)
const app = await buildApp({ store, blobs, subjectKeys: readSide.subjectKeys, readModel: readSide.readModel, audit: readSide.audit, dataDir, logLevel: 'silent', isSecure: () => true, loadShedding: { maxEventLoopDelayMs: 60_000, appendTimeoutMs: 60_000 } })
t.teardown(async () => {
  await app.close()
  await readSide.close()
  await store.close()
  await rm(dataDir, { recursive: true, force: true })
})

async function injectFetch(request: Request): Promise<Response> {
  const url = new URL(request.url)
  const body = Buffer.from(await request.arrayBuffer())
  const answer = await app.inject({
    method: request.method as 'GET',
    url: `${url.pathname}${url.search}`,
    headers: Object.fromEntries(request.headers),
    ...(body.length > 0 ? { payload: body } : {}),
  })
  const headers = new Headers()
  for (const [name, value] of Object.entries(answer.headers)) {
    for (const one of Array.isArray(value) ? value : [value]) if (one !== undefined) headers.append(name, String(one))
  }
  return new Response(answer.rawPayload.length > 0 ? answer.rawPayload : null, { status: answer.statusCode, headers })
}

const { key } = await app.keys.issue({ account: 'courier_1', scopes: ['orders:add', 'orders:update', 'orders:complete', 'orders:cancel', 'orders:read'] })
const client = createWaybillClient({ baseUrl: 'https://waybill.test', apiKey: key, fetch: injectFetch })

/** The id of every event stored for one order of courier_1, as the event store holds them. */
async function storedIds(orderId: string): Promise<string[]> {
  return (await store.readStream(streamNameFor('courier_1', orderId))).map((event) => event.id)
}

t.test('each of the four events, as the document gives them, is accepted with the stored event\'s id', async (t) => {
  const cancelFirst: DeliveryRequest = { ...DELIVERY_EXAMPLES.ORDER_ADD, event_payload: { ...DELIVERY_EXAMPLES.ORDER_ADD.event_payload, order_id: DELIVERY_EXAMPLES.ORDER_CANCELED.event_payload.order_id } }
  const sends: [DeliveryRequest, number, string][] = [
    [DELIVERY_EXAMPLES.ORDER_ADD, 201, 'ORD-20260302-0042'],
    [DELIVERY_EXAMPLES.ORDER_UPDATE, 202, 'ORD-20260302-0042'],
    [DELIVERY_EXAMPLES.ORDER_COMPLETE, 202, 'ORD-20260302-0042'],
    [cancelFirst, 201, 'ORD-20260302-0043'],
    [DELIVERY_EXAMPLES.ORDER_CANCELED, 202, 'ORD-20260302-0043'],
  ]
  const ids: string[] = []
  for (const [body, status, orderId] of sends) {
    const { response, error } = await client.POST('/v1/deliveries', { body })
    t.equal(response.status, status, `${body.event} answers ${status}`)
    t.equal(error, undefined)
    t.equal(response.headers.get('content-length'), '0', 'the body stays empty')
    const id = response.headers.get('waybill-event-id')
    t.equal(id, (await storedIds(orderId)).at(-1), `${body.event}: Waybill-Event-Id is the stored event's id`)
    ids.push(id ?? '')
  }
  const retry = await client.POST('/v1/deliveries', { body: DELIVERY_EXAMPLES.ORDER_ADD })
  t.equal(retry.response.status, 201, 'an exact retry answers its original status')
  t.equal(retry.response.headers.get('waybill-event-id'), ids[0], '… and the id of the event stored the first time')

  // The same app serves the reads: the order's history, straight from the event store.
  const history = await client.GET('/v1/orders/{order_id}/events', { params: { path: { order_id: 'ORD-20260302-0042' } } })
  t.equal(history.response.status, 200)
  t.same(history.data?.events.map((event) => event.event_id), ids.slice(0, 3), 'the history names the events the answers named')
})

t.test('a form body from the client, with base64 percent-encoded, is accepted', async (t) => {
  const add = { ...DELIVERY_EXAMPLES.ORDER_ADD, event_payload: { ...DELIVERY_EXAMPLES.ORDER_ADD.event_payload, order_id: 'FORM-1' } }
  const complete = { ...DELIVERY_EXAMPLES.ORDER_COMPLETE, event_payload: { ...DELIVERY_EXAMPLES.ORDER_COMPLETE.event_payload, order_id: 'FORM-1' } }
  for (const [body, status] of [[add, 201], [complete, 202]] as const) {
    const { response } = await client.POST('/v1/deliveries', {
      body, bodySerializer: formBody, headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    t.equal(response.status, status)
    t.equal(response.headers.get('waybill-event-id'), (await storedIds('FORM-1')).at(-1))
  }
})

t.test('a body with three field errors gets all three, each with its pointer; the first is the detail', async (t) => {
  const body = {
    event: 'ORDER_ADD', event_date: 'yesterday',
    event_payload: { order_id: 'BAD-1', location: 'L', status: 'lost', address: 'A', delivery_date: '2026-03-03T14:00:00Z' },
  } as unknown as DeliveryRequest
  const { response, error } = await client.POST('/v1/deliveries', { body })
  t.equal(response.status, 400)
  t.equal(response.headers.get('content-type'), 'application/problem+json; charset=utf-8')
  t.equal(error?.code, 'bad_request')
  t.same(error?.errors?.map((e) => e.pointer), ['/event_date', '/event_payload/customer', '/event_payload/status'])
  t.equal(error?.errors?.[1]?.detail, 'is required')
  t.equal(error?.detail, `event_date: ${error?.errors?.[0]?.detail ?? ''}`, 'the detail still names the first')
})

t.test('base64 broken by form encoding or line wrapping says why', async (t) => {
  const png = DELIVERY_EXAMPLES.ORDER_COMPLETE.event_payload.pod
  // What `curl -d` makes of a '+' in a form body: a space.
  const plus = `${png.slice(0, 40)} ${png.slice(41)}`
  const wrapped = `${png.slice(0, 40)}\n${png.slice(40)}`
  for (const [pod, hint] of [[plus, /%2B/], [wrapped, /one line/]] as const) {
    const body = { ...DELIVERY_EXAMPLES.ORDER_COMPLETE, event_payload: { ...DELIVERY_EXAMPLES.ORDER_COMPLETE.event_payload, order_id: 'B64', pod } }
    const { response, error } = await client.POST('/v1/deliveries', { body })
    t.equal(response.status, 400)
    t.match(error?.detail, /^event_payload\.pod: data must be strict base64 \(RFC 4648\); /)
    t.match(error?.detail, hint)
  }
})

t.test('a known path with a wrong method is 405 with Allow; an unknown path stays 404', async (t) => {
  const wrong = await client.DELETE('/v1/deliveries' as never, {} as never) as { response: Response; error?: { code?: string } }
  t.equal(wrong.response.status, 405)
  t.equal(wrong.response.headers.get('allow'), 'POST')
  t.equal(wrong.error?.code, 'method_not_allowed')
  const ping = await app.inject({ method: 'POST', url: '/ping', headers: { 'service-api-key': key } })
  t.equal(ping.statusCode, 405)
  t.equal(ping.headers.allow, 'GET, HEAD')
  const unknown = await app.inject({ method: 'DELETE', url: '/v1/nothing' })
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.headers.allow, undefined)
})

t.test('/ping shows the key\'s account, id and scopes', async (t) => {
  const { data, response } = await client.GET('/ping')
  t.equal(response.status, 200)
  t.equal(data?.account, 'courier_1')
  t.match(data?.key_id, /\S/)
  t.same(data?.scopes, ['orders:add', 'orders:update', 'orders:complete', 'orders:cancel', 'orders:read'])
  t.equal(data?.test, false)
})

t.test('the headers the document gives an answer are on the real answer', async (t) => {
  const document = (await app.inject({ method: 'GET', url: '/docs/json' })).json<{
    paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>>
  }>()
  const documented = (path: string, method: string, status: string): string[] =>
    Object.keys(document.paths[path]?.[method]?.responses[status]?.headers ?? {}).map((name) => name.toLowerCase()).sort()
  const added = await client.POST('/v1/deliveries', { body: { ...DELIVERY_EXAMPLES.ORDER_ADD, event_payload: { ...DELIVERY_EXAMPLES.ORDER_ADD.event_payload, order_id: 'HEADERS-1' } } })
  const sent = documented('/v1/deliveries', 'post', '201')
  t.same(sent, ['waybill-event-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-request-id'])
  for (const name of sent) t.not(added.response.headers.get(name), null, `201 carries ${name}`)
  const probe = await app.inject({ method: 'GET', url: '/healthz' })
  t.same(documented('/healthz', 'get', '200'), ['x-request-id'], 'a probe is not counted by the per-key limiter')
  t.equal(probe.headers['x-ratelimit-limit'], undefined)
})
