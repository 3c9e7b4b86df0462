import t, { type Test } from 'tap'
import { WIRE_EVENTS, type WireEvent } from '../src/commands.js'
import { DELIVERY_EXAMPLES } from '../src/delivery-examples.js'
import { validateDelivery } from '../src/validate-delivery.js'
import { JPEG, PAYLOADS, PNG, REQUIRED, body } from './wire-samples.js'


/** When this body is validated, then it is a bad_request whose detail says `detail`. */
function rejects(t: Test, event: WireEvent, input: Record<string, unknown>, detail: string | RegExp, name?: string) {
  const result = validateDelivery(event, input)
  t.match(result, { ok: false, error: { code: 'bad_request', status: 400, detail } }, name ?? String(detail))
}

t.test('a valid body of each event passes, with the payload values as sent', async (t) => {
  for (const event of WIRE_EVENTS) {
    const result = validateDelivery(event, body(event))
    t.ok(result.ok, event)
    if (result.ok) {
      t.equal(result.value.event, event)
      t.equal(result.value.event_date, '2025-02-27T08:00:00Z')
      t.equal(result.value.payload.order_id, 'A-1001')
    }
  }
})

t.test('ORDER_COMPLETE carries its images decoded, with sha256 and normalised media type', async (t) => {
  const result = validateDelivery('ORDER_COMPLETE', body('ORDER_COMPLETE'))
  if (!result.ok || result.value.event !== 'ORDER_COMPLETE') throw new Error('expected a valid completion')
  t.same(result.value.payload.pod.bytes, JPEG)
  t.equal(result.value.payload.pod.media_type, 'image/jpeg')
  t.match(result.value.payload.pod.sha256, /^[0-9a-f]{64}$/)
  t.same(result.value.payload.signature?.bytes, PNG)
})

t.test('the envelope needs event_date and an object event_payload', async (t) => {
  rejects(t, 'ORDER_ADD', body('ORDER_ADD', {}, { event_date: undefined }), 'event_date: is required')
  rejects(t, 'ORDER_ADD', body('ORDER_ADD', {}, { event_payload: undefined }), 'event_payload: is required')
  for (const payload of [null, 'x', 3, [], [PAYLOADS.ORDER_ADD], true]) {
    rejects(t, 'ORDER_ADD', body('ORDER_ADD', {}, { event_payload: payload }), 'event_payload: must be an object', JSON.stringify(payload))
  }
  rejects(t, 'ORDER_ADD', body('ORDER_ADD', {}, { event_date: 1740643200 }), 'event_date: must be a string')
  rejects(t, 'ORDER_ADD', body('ORDER_ADD', {}, { event_date: '2025-02-27' }), /^event_date: must be YYYY-MM-DDTHH:MM:SSZ/)
})

t.test('every required field of every event, missing in turn, is named', async (t) => {
  for (const event of WIRE_EVENTS) {
    for (const field of REQUIRED[event]) {
      rejects(t, event, body(event, { [field]: undefined }), `event_payload.${field}: is required`, `${event} without ${field}`)
    }
  }
})

t.test('a value of the wrong JSON type is a bad_request naming the field', async (t) => {
  for (const event of WIRE_EVENTS) {
    for (const field of Object.keys(PAYLOADS[event])) {
      for (const wrong of [42, 0, false, null, [], ['x'], {}, { value: 'x' }]) {
        const name = `${event}.${field} = ${JSON.stringify(wrong)}`
        rejects(t, event, body(event, { [field]: wrong }), `event_payload.${field}: must be a string`, name)
      }
    }
  }
})

t.test('checks run in payload order (docs/contract.md#event-payloads): the first failing field is named', async (t) => {
  rejects(t, 'ORDER_ADD', body('ORDER_ADD', { customer: 1, address: 2 }, { event_date: 'x' }), /^event_date:/)
  rejects(t, 'ORDER_ADD', body('ORDER_ADD', { customer: 1, address: 2 }), /^event_payload\.customer:/)
  rejects(t, 'ORDER_COMPLETE', body('ORDER_COMPLETE', { pod: 'x', recipient: '' }), /^event_payload\.pod:/)
})

t.test('status is pending or in_progress, exactly', async (t) => {
  for (const status of ['pending', 'in_progress']) t.ok(validateDelivery('ORDER_UPDATE', body('ORDER_UPDATE', { status })).ok)
  for (const status of ['completed', 'canceled', 'PENDING', ' pending', 'in-progress', '']) {
    rejects(t, 'ORDER_UPDATE', body('ORDER_UPDATE', { status }), 'event_payload.status: must be pending or in_progress', status)
  }
})

t.test('fields that do not belong to the event are ignored and not kept', async (t) => {
  const extra = { customer: 'C-9', reason: 'nope', pod: 42, note: 'hello', __proto__: 'x', constructor: 'y' }
  const result = validateDelivery('ORDER_UPDATE', body('ORDER_UPDATE', extra, { extra: { deep: true } }))
  t.ok(result.ok)
  if (result.ok) t.same(Object.keys(result.value.payload).sort(), ['address', 'delivery_date', 'order_id', 'status'])
})

t.test('prototype tricks neither supply nor change fields', async (t) => {
  const inherited = Object.create({ order_id: 'A-1' }) as Record<string, unknown>
  Object.assign(inherited, { reason: 'x' })
  rejects(t, 'ORDER_CANCELED', body('ORDER_CANCELED', {}, { event_payload: inherited }), 'event_payload.order_id: is required')

  const poisoned = JSON.parse('{"event":"ORDER_CANCELED","event_date":"2025-02-27T08:00:00Z","__proto__":{"polluted":1},' +
    '"event_payload":{"__proto__":{"order_id":"A-1","reason":"x"},"constructor":{"prototype":{"polluted":1}},"reason":"moved"}}') as Record<string, unknown>
  rejects(t, 'ORDER_CANCELED', poisoned, 'event_payload.order_id: is required')
  t.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype untouched')

  const nullProto = Object.assign(Object.create(null) as Record<string, unknown>, PAYLOADS.ORDER_CANCELED)
  t.ok(validateDelivery('ORDER_CANCELED', body('ORDER_CANCELED', {}, { event_payload: nullProto })).ok, 'null-prototype objects (form parsers) work')
})

t.test('a polluted Object.prototype supplies no field either', async (t) => {
  Object.defineProperty(Object.prototype, 'order_id', { value: 'A-1', configurable: true })
  try {
    rejects(t, 'ORDER_CANCELED', body('ORDER_CANCELED', { order_id: undefined }), 'event_payload.order_id: is required')
  } finally {
    delete (Object.prototype as Record<string, unknown>).order_id
  }
  t.equal(({} as Record<string, unknown>).order_id, undefined, 'and it is clean again')
})

t.test('an error that is not a validation failure is not swallowed', async (t) => {
  const payload = { ...PAYLOADS.ORDER_CANCELED }
  Object.defineProperty(payload, 'reason', { enumerable: true, get: () => { throw new RangeError('boom') } })
  t.throws(() => validateDelivery('ORDER_CANCELED', body('ORDER_CANCELED', {}, { event_payload: payload })), RangeError)
})

t.test('the examples the OpenAPI document and the README show are valid', async (t) => {
  for (const event of WIRE_EVENTS) t.ok(validateDelivery(event, DELIVERY_EXAMPLES[event]).ok, event)
})

t.test('a refusal lists every wrong field with its pointer; the detail names the first', async (t) => {
  const result = validateDelivery('ORDER_CANCELED', { event: 'ORDER_CANCELED', event_date: 'soon', event_payload: { reason: ' ' } })
  t.match(result, {
    ok: false,
    error: {
      detail: 'event_date: must be YYYY-MM-DDTHH:MM:SSZ in UTC (up to 9 fraction digits; no offset)',
      errors: [
        { pointer: '/event_date', field: 'event_date', detail: /^must be YYYY/ },
        { pointer: '/event_payload/order_id', field: 'event_payload.order_id', detail: 'is required' },
        { pointer: '/event_payload/reason', field: 'event_payload.reason', detail: 'must not be empty' },
      ],
    },
  })
})
