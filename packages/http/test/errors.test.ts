import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { testApp } from './helpers/app.js'
import { problem } from './helpers/problem.js'
import { addBody, cancelBody, orderId, updateBody } from './fixtures.js'

t.test('every error code, with its status and the problem body', async (t) => {
  const s = await testApp(t)
  const id = orderId()
  const readOnly = await s.newKey('acme', ['orders:read'])

  // insecure_connection: keys.e2e.test.ts, over a real plain-HTTP socket.
  problem(t, await s.send('GET', '/ping', { key: null }), 401, 'api_key_missing')
  problem(t, await s.send('GET', '/ping', { key: 'wb_live_nope' }), 401, 'invalid_api_key')
  problem(t, await s.send('POST', '/v1/deliveries', { body: '', contentType: 'application/json' }), 400, 'no_body')
  problem(t, await s.send('POST', '/v1/deliveries', { body: '{"event":', contentType: 'application/json' }), 400, 'bad_request')
  problem(t, await s.json('/v1/deliveries', { event: 'ORDER_SHIPPED' }), 400, 'unknown_event')
  problem(t, await s.json('/v1/deliveries', addBody(id), readOnly), 403, 'api_key_forbidden')
  problem(t, await s.json('/v1/deliveries', updateBody(id)), 404, 'not_found')
  t.equal((await s.json('/v1/deliveries', addBody(id))).status, 201)
  problem(t, await s.json('/v1/deliveries', addBody(id, { customer: 'someone else' })), 409, 'conflict')
  t.equal((await s.json('/v1/deliveries', cancelBody(id))).status, 202)
  problem(t, await s.json('/v1/deliveries', updateBody(id)), 409, 'locked')
  problem(t, await s.send('POST', '/v1/deliveries', { body: 'x'.repeat(17 * 1024 * 1024), contentType: 'application/json' }), 413, 'payload_too_large')
  problem(t, await s.send('POST', '/v1/deliveries', { body: '<xml/>', contentType: 'application/xml' }), 415, 'unsupported_media_type')

  // A store failure is a 500 server_error without internals: the blob directory becomes a file.
  await rm(join(s.dataDir, 'blobs'), { recursive: true, force: true })
  await writeFile(join(s.dataDir, 'blobs'), 'not a directory')
  const { completeBody } = await import('./fixtures.js')
  const id2 = orderId()
  t.equal((await s.json('/v1/deliveries', addBody(id2))).status, 201)
  const failed = await s.json('/v1/deliveries', completeBody(id2))
  problem(t, failed, 500, 'server_error')
  t.equal(failed.json.detail, 'Internal server error')
  t.notMatch(failed.text, /ENOTDIR|EEXIST|blobs/)
})

t.test('rate_limited: 429 with Retry-After, per key', async (t) => {
  const s = await testApp(t, { rateLimit: { max: 3, windowMs: 60_000 } })
  for (let i = 0; i < 3; i += 1) t.equal((await s.send('GET', '/ping')).status, 200)
  const limited = await s.send('GET', '/ping')
  problem(t, limited, 429, 'rate_limited')
  t.ok(Number(limited.headers['retry-after']) >= 1, 'Retry-After in seconds')
  // Another key has its own budget.
  t.equal((await s.send('GET', '/ping', { key: await s.newKey('acme', ['orders:read']) })).status, 200)
})

t.test('order of checks (docs/contract.md#order-of-checks)', async (t) => {
  const s = await testApp(t)
  const readOnly = await s.newKey('acme', ['orders:read'])
  // Plain HTTP beats everything, even a missing key and an empty body: keys.e2e.test.ts (real sockets).
  // Missing key beats an empty body; an invalid key beats an empty body and a bad body.
  problem(t, await s.send('POST', '/v1/deliveries', { key: null, body: '', contentType: 'application/json' }), 401, 'api_key_missing')
  problem(t, await s.send('POST', '/v1/deliveries', { key: 'wb_live_x', body: '' }), 401, 'invalid_api_key')
  problem(t, await s.send('POST', '/v1/deliveries', { key: 'wb_live_x', body: '{', contentType: 'application/json' }), 401, 'invalid_api_key')
  // An invalid key never makes the server read a large body.
  problem(t, await s.send('POST', '/v1/deliveries', { key: 'wb_live_x', body: 'x'.repeat(17 * 1024 * 1024), contentType: 'application/json' }), 401, 'invalid_api_key')
  // Empty body beats the scope and the event check.
  problem(t, await s.send('POST', '/v1/deliveries', { key: readOnly, body: '  \n ', contentType: 'application/json' }), 400, 'no_body')
  problem(t, await s.send('POST', '/v1/deliveries', { key: readOnly }), 400, 'no_body')
  // Unparseable body beats unknown_event and the scope.
  problem(t, await s.send('POST', '/v1/deliveries', { key: readOnly, body: 'nope', contentType: 'application/json' }), 400, 'bad_request')
  // Unknown event beats a missing scope; `{}` is unknown_event.
  problem(t, await s.json('/v1/deliveries', { event: 'NOPE', event_payload: {} }, readOnly), 400, 'unknown_event')
  problem(t, await s.json('/v1/deliveries', {}, readOnly), 400, 'unknown_event')
  // A missing scope beats a bad payload.
  problem(t, await s.json('/v1/deliveries', { event: 'ORDER_ADD', event_payload: { order_id: 5 } }, readOnly), 403, 'api_key_forbidden')
  // A bad payload beats the domain rules (not_found).
  problem(t, await s.json('/v1/deliveries', { event: 'ORDER_UPDATE', event_date: 'soon', event_payload: { order_id: orderId() } }), 400, 'bad_request')
})

t.test('content types: blank bodies and missing types', async (t) => {
  const s = await testApp(t)
  problem(t, await s.send('POST', '/v1/deliveries', { body: '   ', contentType: 'application/xml' }), 400, 'no_body')
  problem(t, await s.send('POST', '/v1/deliveries', { body: '{"event":"ORDER_ADD"}' }), 415, 'unsupported_media_type')
  problem(t, await s.send('POST', '/v1/deliveries', { body: '', contentType: 'application/x-www-form-urlencoded' }), 400, 'no_body')
  problem(t, await s.send('POST', '/v1/deliveries', { body: ' ', contentType: 'multipart/form-data; boundary=x' }), 400, 'no_body')
  problem(t, await s.send('POST', '/v1/deliveries', { body: 'garbage', contentType: 'multipart/form-data; boundary=x' }), 400, 'bad_request')
})

t.test('probes, docs and unknown routes', async (t) => {
  const s = await testApp(t)
  t.same((await s.send('GET', '/healthz', { key: null })).json, { status: 'ok' })
  t.same((await s.send('GET', '/readyz', { key: null })).json, { status: 'ready' })
  const ping = await s.send('GET', '/ping')
  t.equal(ping.status, 200)
  t.match(ping.json, { status: 'ok', account: 'sandbox', test: true })
  t.match(String(ping.headers['x-request-id']), /.+/)
  t.equal((await s.send('GET', '/ping', { headers: { 'x-request-id': 'trace-123' } })).headers['x-request-id'], 'trace-123')
  const docs = await s.send('GET', '/docs/json', { key: null })
  t.equal(docs.status, 200)
  t.ok(docs.json.paths['/v1/deliveries'].post, 'OpenAPI document lists POST /v1/deliveries')
  const responses = docs.json.paths['/v1/deliveries'].post.responses as Record<string, { content: object }>
  t.same(Object.keys(responses['400']!.content), ['application/problem+json'], 'errors are documented as problem+json, per status')
  t.same(Object.keys(responses['503']!.content), ['application/problem+json'])
  t.equal((await s.send('GET', '/docs', { key: null })).status < 400, true)
  t.match((await s.send('GET', '/errors/locked', { key: null })).json, { code: 'locked', status: 409 })
  problem(t, await s.send('GET', '/nowhere', { key: null }), 404, 'not_found')
})

t.test('a key put where an order id or a path goes is never echoed, nor written to the log', async (t) => {
  const s = await testApp(t, { logLevel: 'debug' })
  const key = await s.newKey('acme', ['orders:read'])
  for (const path of [`/v1/orders/${key}`, `/v1/orders/${key}/events`, `/${key}`, `/v1/orders/${encodeURIComponent(key)}%ZZ`, `/errors/${key}`]) {
    const answer = await s.send('GET', path, { key })
    t.ok(answer.status >= 400, `${path}: refused (${answer.status})`)
    t.notMatch(answer.text, key, `${path}: the answer does not repeat the key`)
    t.match(answer.text, /wb_live_…/, `${path}: it names the key only by its prefix`)
  }
  const logged = s.logs.map((line) => JSON.stringify(line)).join('\n')
  t.ok(s.logs.length > 0)
  t.notMatch(logged, key, 'no log line holds the key')
})
