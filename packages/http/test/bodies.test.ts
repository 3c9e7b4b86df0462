import { randomBytes } from 'node:crypto'
import t from 'tap'
import { testApp } from './helpers/app.js'
import { LIMITS } from '@waybill/domain'
import { addBody, completeBody, dataUrl, orderId, PNG } from './fixtures.js'

/** The envelope as bracket-notation fields, as the specification's samples send it (docs/contract.md#body-content-types). */
function fields(body: { event: string; event_date: string; event_payload: Record<string, unknown> }): Array<[string, string]> {
  return [
    ['event', body.event], ['event_date', body.event_date],
    ...Object.entries(body.event_payload).filter(([, v]) => v !== undefined).map(([k, v]) => [`event_payload[${k}]`, String(v)] as [string, string]),
  ]
}

function form(pairs: Array<[string, string]>): string {
  return new URLSearchParams(pairs).toString()
}

function multipart(pairs: Array<[string, string]>, boundary = 'waybill-boundary-1234'): { body: string; contentType: string } {
  const parts = pairs.map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
  return { body: `${parts.join('')}--${boundary}--\r\n`, contentType: `multipart/form-data; boundary=${boundary}` }
}

t.test('application/x-www-form-urlencoded with bracket notation', async (t) => {
  const s = await testApp(t)
  const id = orderId('form')
  const post = (pairs: Array<[string, string]>) => s.send('POST', '/v1/deliveries', { body: form(pairs), contentType: 'application/x-www-form-urlencoded' })
  t.equal((await post(fields(addBody(id)))).status, 201)
  t.equal((await post(fields(addBody(id)))).status, 201, 'the same event as a form is an exact retry')
  t.equal((await s.json('/v1/deliveries', addBody(id))).status, 201, 'and as JSON too: one canonical event')
  const complete = await post(fields(completeBody(id)))
  t.equal(complete.status, 202, complete.text)
  const repeated = await post([...fields(addBody(orderId())), ['event_payload[customer]', 'again']])
  t.equal(repeated.json.code, 'bad_request', 'a repeated field')
  const nested = await post([...fields(addBody(orderId())), ['event_payload[a][b]', 'x']])
  t.equal(nested.json.code, 'bad_request', 'two levels of brackets')
  t.equal((await post([['event_payload[order_id]', 'x']])).json.code, 'unknown_event')
  const missing = fields(addBody(orderId())).filter(([name]) => name !== 'event_payload[location]')
  t.match((await post(missing)).json, { code: 'bad_request', detail: /location/ })
})

t.test('multipart/form-data with the same field names', async (t) => {
  const s = await testApp(t)
  const id = orderId('multi')
  const post = (pairs: Array<[string, string]>) => s.send('POST', '/v1/deliveries', multipart(pairs))
  t.equal((await post(fields(addBody(id)))).status, 201)
  const complete = await post(fields(completeBody(id)))
  t.equal(complete.status, 202, complete.text)
  const boundary = 'b0undary'
  const file = `--${boundary}\r\nContent-Disposition: form-data; name="event"\r\n\r\nORDER_ADD\r\n--${boundary}\r\nContent-Disposition: form-data; name="event_payload[pod]"; filename="pod.png"\r\nContent-Type: image/png\r\n\r\nxxxx\r\n--${boundary}--\r\n`
  const reply = await s.send('POST', '/v1/deliveries', { body: file, contentType: `multipart/form-data; boundary=${boundary}` })
  t.match(reply.json, { code: 'bad_request', detail: /file/ }, 'file parts are refused')
})

t.test('a delivery with two 5 MiB images passes the structure checks in every body type', async (t) => {
  // Each request decodes and hashes 10 MiB of images: on a machine busy with other test files
  // that can hold the event loop past the 1 s load-shedding bound or an append past its 2 s
  // wait, and the request would rightly get a 503. This test is about the body types, so both
  // bounds are lifted (load shedding has tests of its own).
  const s = await testApp(t, { loadShedding: { maxEventLoopDelayMs: 60_000, appendTimeoutMs: 60_000 } })
  // The largest image the contract takes, twice: a PNG of exactly 5 MiB, of compressed (random)
  // bytes as real ones are, so that a form percent-encodes about 1 in 32 of its base64 characters.
  const image = dataUrl('image/png', Buffer.concat([PNG, randomBytes(LIMITS.imageMaxBytes - PNG.length)]))
  const complete = (id: string) => completeBody(id, { pod: image, signature: image.replace('image/png', 'IMAGE/PNG') })
  const sent = {
    json: (id: string) => s.json('/v1/deliveries', complete(id)),
    form: (id: string) => s.send('POST', '/v1/deliveries', { body: form(fields(complete(id))), contentType: 'application/x-www-form-urlencoded' }),
    multipart: (id: string) => s.send('POST', '/v1/deliveries', multipart(fields(complete(id)))),
  }
  for (const [type, send] of Object.entries(sent)) {
    const id = orderId(type)
    t.equal((await s.json('/v1/deliveries', addBody(id))).status, 201)
    const reply = await send(id)
    t.equal(reply.status, 202, `${type}: ${reply.text.slice(0, 200)}`)
  }
})
