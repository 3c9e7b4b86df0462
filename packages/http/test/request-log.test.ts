import t from 'tap'
import { addBody, orderId } from './fixtures.js'
import { testApp } from './helpers/app.js'

const requestLines = (logs: ReadonlyArray<Record<string, unknown>>) => logs.filter((line) => line['msg'] === 'request')

t.test('one log line per request, when it is answered: method, path, route, status, duration, client, request id; no key, no body', async (t) => {
  const s = await testApp(t)
  const id = orderId('log')
  s.logs.length = 0
  const created = await s.json('/v1/deliveries', addBody(id))
  t.equal(created.status, 201)
  t.equal(s.logs.length, 1, 'one line for the request, not two')
  const [line] = requestLines(s.logs)
  t.match(line, {
    level: 30, msg: 'request', method: 'POST', url: '/v1/deliveries', route: '/v1/deliveries', status: 201,
    duration_ms: Number, client: String, reqId: created.headers['x-request-id'], pid: Number, hostname: String, time: Number,
  })
  t.notOk(s.logs.some((entry) => entry['msg'] === 'incoming request' || entry['msg'] === 'request completed'), 'Fastify\'s own request lines are gone')
  const logged = JSON.stringify(s.logs)
  t.notMatch(logged, s.testKey, 'no key')
  t.notMatch(logged, id, 'no body (the order id is in the body only)')

  s.logs.length = 0
  const read = await s.get(`/v1/orders/${encodeURIComponent(id)}`)
  t.equal(read.statusCode, 404)
  t.match(requestLines(s.logs), [{ level: 30, route: '/v1/orders/:order_id', status: 404, code: 'not_found', detail: String }],
    'a refusal says its code and detail on the same one line')
  t.equal(s.logs.length, 1)
})

t.test('the probes are logged at debug only', async (t) => {
  const quiet = await testApp(t)
  quiet.logs.length = 0
  t.equal((await quiet.send('GET', '/healthz', { key: null })).status, 200)
  t.equal((await quiet.send('GET', '/readyz', { key: null })).status, 200)
  t.same(quiet.logs, [], 'nothing at info')
  const verbose = await testApp(t, { logLevel: 'debug' })
  verbose.logs.length = 0
  await verbose.send('GET', '/healthz', { key: null })
  t.match(requestLines(verbose.logs), [{ level: 20, route: '/healthz', status: 200 }], 'a debug line at debug')
})

t.test('a request answered 503 is a warning with its cause; the problem\'s detail stays general', async (t) => {
  // The store refuses (it is closed): what a store gone away looks like to a request.
  const s = await testApp(t)
  await s.store.close()
  s.logs.length = 0
  const refused = await s.json('/v1/deliveries', addBody(orderId('closed')))
  t.equal(refused.status, 503)
  t.match(requestLines(s.logs), [{ level: 40, status: 503, code: 'server_error', cause: /closed/ }])
  t.notMatch(refused.text, /closed/, 'the cause is not said to the client')
})
