import fc from 'fast-check'
import t from 'tap'
import { WIRE_EVENTS } from '../src/commands.js'
import {
  DeliveryRequestSchema,
  OrderAddPayloadSchema,
  OrderCanceledPayloadSchema,
  OrderCompletePayloadSchema,
  OrderUpdatePayloadSchema,
} from '../src/delivery-schema.js'
import { decodeImage } from '../src/decoded-images.js'
import { readEventName } from '../src/read-event-name.js'
import { isWireStatus } from '../src/statuses.js'
import { textRefusal } from '../src/text-rules.js'
import { isRealUtcTime, isTimestampShape } from '../src/timestamp.js'
import { validateDelivery } from '../src/validate-delivery.js'
import { JPEG, PNG, body, dataUrl } from './wire-samples.js'

function accepted(input: Record<string, unknown>): boolean {
  const name = readEventName(input)
  return name.ok && validateDelivery(name.event, input).ok
}

const valid: Array<[string, Record<string, unknown>]> = [
  ...WIRE_EVENTS.map((event) => [event, body(event)] as [string, Record<string, unknown>]),
  ['no signature', body('ORDER_COMPLETE', { signature: undefined })],
  ['blank signature', body('ORDER_COMPLETE', { signature: ' ' })],
  ['upper-case data URL', body('ORDER_COMPLETE', { pod: `DATA:IMAGE/JPEG;BASE64,${JPEG.toString('base64')}` })],
  ['128 emoji order_id', body('ORDER_ADD', { order_id: '😀'.repeat(128) })],
  ['1024-character address', body('ORDER_ADD', { address: 'a'.repeat(1024) })],
  ['9 fraction digits', body('ORDER_ADD', { delivery_date: '2024-02-29T23:59:59.123456789Z' })],
  ['spaces kept', body('ORDER_CANCELED', { reason: '  late  ' })],
  ['extra fields', body('ORDER_CANCELED', { note: 1 }, { other: [] })],
]

t.test('valid samples pass', async (t) => {
  for (const [name, input] of valid) t.ok(accepted(input), name)
})

const structural: Array<[string, Record<string, unknown>]> = [
  ['unknown event', { ...body('ORDER_ADD'), event: 'ORDER_DELETE' }],
  ['no event_date', body('ORDER_ADD', {}, { event_date: undefined })],
  ['array payload', body('ORDER_ADD', {}, { event_payload: [] })],
  ...WIRE_EVENTS.flatMap((event) =>
    Object.keys(body(event).event_payload as object).flatMap((field): Array<[string, Record<string, unknown>]> => [
      [`${event} ${field} number`, body(event, { [field]: 1 })],
      [`${event} ${field} null`, body(event, { [field]: null })],
    ]),
  ),
  ['order_id 129', body('ORDER_ADD', { order_id: 'x'.repeat(129) })],
  ['reason 1025', body('ORDER_CANCELED', { reason: 'x'.repeat(1025) })],
  ['blank customer', body('ORDER_ADD', { customer: ' \u00a0 ' })],
  ['empty order_id', body('ORDER_ADD', { order_id: '' })],
  ['C0 control', body('ORDER_ADD', { address: 'a\nb' })],
  ['DEL', body('ORDER_ADD', { address: 'a\u007f' })],
  ['C1 control', body('ORDER_ADD', { address: '\u0085a' })],
  ['lone surrogate', body('ORDER_ADD', { address: 'a\ud800' })],
  ['bad status', body('ORDER_ADD', { status: 'completed' })],
  ['offset', body('ORDER_ADD', { delivery_date: '2025-01-01T00:00:00+00:00' })],
  ['hour 24', body('ORDER_ADD', {}, { event_date: '2025-01-01T24:00:00Z' })],
  ['month 13', body('ORDER_ADD', {}, { event_date: '2025-13-01T00:00:00Z' })],
  ['10 fraction digits', body('ORDER_ADD', {}, { event_date: '2025-01-01T00:00:00.0123456789Z' })],
  ['gif', body('ORDER_COMPLETE', { pod: dataUrl('image/gif', JPEG) })],
  ['base64 with a space', body('ORDER_COMPLETE', { pod: `data:image/png;base64,${PNG.toString('base64').replace(/^(....)/, '$1 ')}` })],
  ['base64 bad padding', body('ORDER_COMPLETE', { pod: `data:image/png;base64,${PNG.toString('base64')}=` })],
  ['base64url alphabet', body('ORDER_COMPLETE', { pod: 'data:image/jpeg;base64,_9j_4A==' })],
]

t.test('structurally invalid samples fail', async (t) => {
  for (const [name, input] of structural) t.notOk(accepted(input), name)
})

const semantic: Array<[string, Record<string, unknown>]> = [
  ['Feb 30', body('ORDER_ADD', { delivery_date: '2025-02-30T00:00:00Z' })],
  ['Feb 29 of a common year', body('ORDER_ADD', {}, { event_date: '2025-02-29T00:00:00Z' })],
  ['non-zero pad bits', body('ORDER_COMPLETE', { pod: 'data:image/jpeg;base64,/9j/4B==' })],
  ['bytes of another type', body('ORDER_COMPLETE', { pod: dataUrl('image/png', JPEG) })],
  ['no bytes', body('ORDER_COMPLETE', { signature: 'data:image/png;base64,' })],
]

t.test('what a pattern cannot say is a named format of the same schema', async (t) => {
  for (const [name, input] of semantic) t.notOk(accepted(input), name)
  const document = JSON.parse(JSON.stringify(OrderCompletePayloadSchema)) as { properties: Record<string, { format?: string; allOf?: Array<{ format?: string }> }> }
  t.equal(document.properties.pod?.format, 'image-data-url', 'the document names the image format')
  t.equal(document.properties.delivery_date?.allOf?.[1]?.format, 'utc-timestamp', 'and the timestamp format, the rule after the shape')
})

t.test('no pattern in the document runs over the base64 of an image', async (t) => {
  // A pattern over 7 MB of base64 overflows V8's regexp stack; the document's must stop at the prefix.
  const pod = (JSON.parse(JSON.stringify(OrderCompletePayloadSchema)) as { properties: { pod: { pattern: string } } }).properties.pod
  const huge = `data:image/png;base64,${'A'.repeat(7_000_000)}`
  t.ok(new RegExp(pod.pattern, 'u').test(huge))
  t.notOk(accepted(body('ORDER_COMPLETE', { pod: huge })), 'and the image itself is refused by size')
})

t.test('the schema documents each event with its required fields', async (t) => {
  t.same(OrderAddPayloadSchema.required, ['order_id', 'customer', 'location', 'status', 'address', 'delivery_date'])
  t.same(OrderUpdatePayloadSchema.required, ['order_id', 'status', 'address', 'delivery_date'])
  t.same(OrderCompletePayloadSchema.required, ['order_id', 'address', 'delivery_date', 'pod', 'recipient'])
  t.same(OrderCanceledPayloadSchema.required, ['order_id', 'reason'])
  t.same(DeliveryRequestSchema.anyOf.map((s) => s.properties.event.const), WIRE_EVENTS)
})

t.test('the label check reads the text rules as the wire validator does, on any string (property)', async () => {
  const anyString = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({ unit: 'grapheme', maxLength: 30 }),
    fc.constantFrom('', ' ', '\u00a0x', 'a\u0085', 'x'.repeat(1024), 'x'.repeat(1025), '😀'.repeat(1024), '😀'.repeat(1025)),
  )
  fc.assert(
    fc.property(anyString, (reason) => {
      const result = validateDelivery('ORDER_CANCELED', body('ORDER_CANCELED', { reason }))
      const refusal = textRefusal(reason, 1024)
      return result.ok ? refusal === null : result.error.detail === `event_payload.reason: ${String(refusal)}`
    }),
    { numRuns: 2000 },
  )
})

t.test("each field is refused exactly when the domain's own predicate says so, in the words of the rule that fails (property)", async () => {
  const timestampish = fc.oneof(
    fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }).map((d) => d.toISOString()),
    fc.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,10})?Z?$/),
    fc.string({ maxLength: 30 }),
  )
  const SHAPE = 'must be YYYY-MM-DDTHH:MM:SSZ in UTC (up to 9 fraction digits; no offset)'
  const cases: Array<[string, fc.Arbitrary<unknown>, (value: unknown) => string | null]> = [
    ['delivery_date', timestampish, (value) => isRealUtcTime(String(value)) ? null : isTimestampShape(String(value)) ? 'is not a real calendar time' : SHAPE],
    ['status', fc.oneof(fc.constantFrom('pending', 'in_progress', 'completed', ''), fc.string(), fc.integer()),
      (value) => isWireStatus(value) ? null : typeof value === 'string' ? 'must be pending or in_progress' : 'must be a string'],
    ['order_id', fc.oneof(fc.string({ unit: 'binary', maxLength: 140 }), fc.constant('x'.repeat(129)), fc.constant(null)), (value) => textRefusal(value, 128)],
    ['pod', fc.oneof(fc.constantFrom(dataUrl('image/png', PNG), dataUrl('image/png', JPEG), 'data:image/png;base64,', 'x'), fc.string()), (value) => {
      const decoded = decodeImage(String(value))
      return decoded.ok ? null : decoded.reason
    }],
  ]
  for (const [field, values, refusal] of cases) {
    fc.assert(fc.property(values, (value) => {
      const event = field === 'pod' ? 'ORDER_COMPLETE' : 'ORDER_UPDATE'
      const result = validateDelivery(event, body(event, { [field]: value }))
      const expected = refusal(value)
      return result.ok ? expected === null : result.error.detail === `event_payload.${field}: ${String(expected)}`
    }), { numRuns: 500 })
  }
})

t.test('every problem of a body is reported, in schema order, with a JSON pointer', async (t) => {
  const result = validateDelivery('ORDER_ADD', body('ORDER_ADD', { customer: 1, status: 'lost', location: undefined }, { event_date: 'x' }))
  t.notOk(result.ok)
  if (!result.ok) {
    t.same(result.error.errors, [
      { pointer: '/event_date', field: 'event_date', detail: 'must be YYYY-MM-DDTHH:MM:SSZ in UTC (up to 9 fraction digits; no offset)' },
      { pointer: '/event_payload/customer', field: 'event_payload.customer', detail: 'must be a string' },
      { pointer: '/event_payload/location', field: 'event_payload.location', detail: 'is required' },
      { pointer: '/event_payload/status', field: 'event_payload.status', detail: 'must be pending or in_progress' },
    ])
    t.equal(result.error.detail, 'event_date: must be YYYY-MM-DDTHH:MM:SSZ in UTC (up to 9 fraction digits; no offset)')
  }
  const other = validateDelivery('ORDER_UPDATE', body('ORDER_ADD'))
  t.match(other, { ok: false, error: { errors: [{ pointer: '/event', detail: 'is not valid' }] } }, 'a body of another event')
})
