import fc from 'fast-check'
import t from 'tap'
import { Compile } from 'typebox/compile'
import { Value } from 'typebox/value'
import { WIRE_EVENTS, type WireEvent } from '../src/commands.js'
import { readEventName } from '../src/read-event-name.js'
import { validateDelivery } from '../src/validate-delivery.js'
import {
  DeliveryRequestSchema,
  OrderAddPayloadSchema,
  OrderCanceledPayloadSchema,
  OrderCompletePayloadSchema,
  OrderUpdatePayloadSchema,
} from '../src/wire-schemas.js'
import { JPEG, PNG, body, dataUrl } from './wire-samples.js'

const PAYLOAD_SCHEMAS = {
  ORDER_ADD: OrderAddPayloadSchema,
  ORDER_UPDATE: OrderUpdatePayloadSchema,
  ORDER_COMPLETE: OrderCompletePayloadSchema,
  ORDER_CANCELED: OrderCanceledPayloadSchema,
}
const compiled = Compile(DeliveryRequestSchema)

function byValidator(input: Record<string, unknown>): boolean {
  const name = readEventName(input)
  return name.ok && validateDelivery(name.event, input).ok
}
function bySchema(input: Record<string, unknown>): boolean {
  const event = input.event as WireEvent
  const payloadOk = !WIRE_EVENTS.includes(event) || Value.Check(PAYLOAD_SCHEMAS[event], input.event_payload)
  const whole = Value.Check(DeliveryRequestSchema, input)
  if (compiled.Check(input) !== whole) throw new Error('compiled and dynamic checks disagree')
  return whole && payloadOk
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

t.test('valid samples pass both the validator and the schema', async (t) => {
  for (const [name, input] of valid) {
    t.ok(byValidator(input), `validator: ${name}`)
    t.ok(bySchema(input), `schema: ${name}`)
  }
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

t.test('structurally invalid samples fail both', async (t) => {
  for (const [name, input] of structural) {
    t.notOk(byValidator(input), `validator: ${name}`)
    t.notOk(bySchema(input), `schema: ${name}`)
  }
})

const semantic: Array<[string, Record<string, unknown>]> = [
  ['Feb 30', body('ORDER_ADD', { delivery_date: '2025-02-30T00:00:00Z' })],
  ['Feb 29 of a common year', body('ORDER_ADD', {}, { event_date: '2025-02-29T00:00:00Z' })],
  ['non-zero pad bits', body('ORDER_COMPLETE', { pod: 'data:image/jpeg;base64,/9j/4B==' })],
  ['bytes of another type', body('ORDER_COMPLETE', { pod: dataUrl('image/png', JPEG) })],
  ['no bytes', body('ORDER_COMPLETE', { signature: 'data:image/png;base64,' })],
]

t.test('what a schema cannot say is the validator\'s alone (documented in the schema)', async (t) => {
  for (const [name, input] of semantic) {
    t.notOk(byValidator(input), `validator: ${name}`)
    t.ok(bySchema(input), `schema: ${name}`)
  }
})

t.test('the schema documents each event with its required fields', async (t) => {
  t.same(OrderAddPayloadSchema.required, ['order_id', 'customer', 'location', 'status', 'address', 'delivery_date'])
  t.same(OrderUpdatePayloadSchema.required, ['order_id', 'status', 'address', 'delivery_date'])
  t.same(OrderCompletePayloadSchema.required, ['order_id', 'address', 'delivery_date', 'pod', 'recipient'])
  t.same(OrderCanceledPayloadSchema.required, ['order_id', 'reason'])
  t.same(DeliveryRequestSchema.anyOf.map((s) => s.properties.event.const), WIRE_EVENTS)
})

t.test('schema and validator agree on any string as a text field (property)', async () => {
  const anyString = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({ unit: 'grapheme', maxLength: 30 }),
    fc.constantFrom('', ' ', '\u00a0x', 'a\u0085', 'x'.repeat(1024), 'x'.repeat(1025), '😀'.repeat(1024), '😀'.repeat(1025)),
  )
  fc.assert(
    fc.property(anyString, (reason) => {
      const input = body('ORDER_CANCELED', { reason })
      return byValidator(input) === bySchema(input)
    }),
    { numRuns: 2000 },
  )
})
