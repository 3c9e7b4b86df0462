import t, { type Test } from 'tap'
import { testApp, type TestApp } from './helpers/app.js'
import { addBody, cancelBody, completeBody, dataUrl, JPEG, orderId, PNG, updateBody, WEBP } from './fixtures.js'

type Builder = (id: string, overrides?: Record<string, unknown>) => { event: string; event_date: string; event_payload: Record<string, unknown> }

const REQUIRED: ReadonlyArray<[string, Builder, readonly string[]]> = [
  ['ORDER_ADD', addBody, ['order_id', 'customer', 'location', 'status', 'address', 'delivery_date']],
  ['ORDER_UPDATE', updateBody, ['order_id', 'status', 'address', 'delivery_date']],
  ['ORDER_COMPLETE', completeBody, ['order_id', 'address', 'delivery_date', 'pod', 'recipient']],
  ['ORDER_CANCELED', cancelBody, ['order_id', 'reason']],
]

/** An order in the state the event needs (existing and open, except for ORDER_ADD). */
async function prepared(s: TestApp, event: string): Promise<string> {
  const id = orderId(event.toLowerCase())
  if (event !== 'ORDER_ADD') t.equal((await s.json('/v1/deliveries', addBody(id))).status, 201)
  return id
}

async function expectBadRequest(t: Test, s: TestApp, body: unknown, field: string): Promise<void> {
  const reply = await s.json('/v1/deliveries', body)
  t.equal(reply.status, 400, `${field}: ${reply.text}`)
  t.equal(reply.json?.code, 'bad_request', field)
  t.match(String(reply.json?.detail), new RegExp(field.replace(/[[\]]/g, '.')), `detail names ${field}`)
}

t.test('every required field of every event, missing in turn', async (t) => {
  const s = await testApp(t)
  for (const [event, build, fields] of REQUIRED) {
    for (const field of fields) {
      const id = await prepared(s, event)
      const body = build(id)
      const { [field]: _missing, ...payload } = body.event_payload
      await expectBadRequest(t, s, { ...body, event_payload: payload }, field)
    }
    const id = await prepared(s, event)
    const { event_date: _omitted, ...withoutDate } = build(id)
    await expectBadRequest(t, s, withoutDate, 'event_date')
    await expectBadRequest(t, s, { event, event_date: '2025-03-01T10:00:00Z' }, 'event_payload')
  }
})

t.test('wrong types and empty strings', async (t) => {
  const s = await testApp(t)
  const cases: Array<[string, unknown]> = [
    ['order_id', 42], ['customer', ['c']], ['location', { a: 1 }], ['status', 'delivered'], ['address', true],
    ['customer', '   '], ['order_id', 'x'.repeat(129)], ['address', 'x'.repeat(1025)], ['customer', 'a\u0007b'],
  ]
  for (const [field, value] of cases) {
    await expectBadRequest(t, s, addBody(await prepared(s, 'ORDER_ADD'), { [field]: value }), field)
  }
  await expectBadRequest(t, s, { ...addBody(orderId()), event_payload: 'not an object' }, 'event_payload')
  // Fields that do not belong to the event are ignored.
  t.equal((await s.json('/v1/deliveries', addBody(orderId(), { colour: 'blue' }))).status, 201)
})

t.test('bad dates', async (t) => {
  const s = await testApp(t)
  for (const value of ['2025-02-30T10:00:00Z', '2025-03-01T10:00:00+01:00', '2025-03-01 10:00:00Z', '2025-03-01', '2025-13-01T10:00:00Z', '2025-03-01T24:00:00Z', 'yesterday', '']) {
    await expectBadRequest(t, s, addBody(orderId(), { delivery_date: value }), 'delivery_date')
    await expectBadRequest(t, s, { ...addBody(orderId()), event_date: value }, 'event_date')
  }
  t.equal((await s.json('/v1/deliveries', addBody(orderId(), { delivery_date: '2024-02-29T23:59:59.123Z' }))).status, 201, 'leap day with fraction')
})

t.test('bad images', async (t) => {
  const s = await testApp(t)
  const bad: Array<[string, string]> = [
    ['not a data URL', 'https://example.com/pod.png'],
    ['bad base64', 'data:image/png;base64,@@@@'],
    ['no base64 marker', `data:image/png,${PNG.toString('base64')}`],
    ['media type not allowed', dataUrl('image/gif', Buffer.from('GIF89a'))],
    ['bytes not matching the type', dataUrl('image/png', JPEG)],
    ['empty image', 'data:image/png;base64,'],
    ['too big', dataUrl('image/png', Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)]))],
  ]
  for (const [what, value] of bad) {
    const id = await prepared(s, 'ORDER_COMPLETE')
    await expectBadRequest(t, s, completeBody(id, { pod: value }), 'pod')
    const id2 = await prepared(s, 'ORDER_COMPLETE')
    await expectBadRequest(t, s, completeBody(id2, { signature: value }), 'signature')
    t.pass(what)
  }
  const id = await prepared(s, 'ORDER_COMPLETE')
  const webp = await s.json('/v1/deliveries', completeBody(id, { pod: dataUrl('image/webp', WEBP), signature: undefined }))
  t.equal(webp.status, 202, 'webp pod without the optional signature')
})

t.test('an order id a URL would normalise away is refused: . and ..', async (t) => {
  const s = await testApp(t)
  for (const id of ['.', '..']) {
    const reply = await s.json('/v1/deliveries', addBody(id))
    t.equal(reply.status, 400, id)
    t.equal(reply.json?.detail, 'event_payload.order_id: must not be . or .. (a URL path would drop it)', id)
  }
  t.equal((await s.json('/v1/deliveries', addBody('...'))).status, 201, 'three dots are a name like any other')
})
