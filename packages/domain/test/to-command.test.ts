import fc from 'fast-check'
import t from 'tap'
import { Value } from 'typebox/value'
import { canonicalJson } from '../src/canonical-json.js'
import { WIRE_EVENTS } from '../src/commands.js'
import { eventIdFor } from '../src/event-id.js'
import { toCommand } from '../src/to-command.js'
import { deliveryImages, type ValidDelivery } from '../src/valid-delivery.js'
import { validateDelivery } from '../src/validate-delivery.js'
import { DeliveryRequestSchema } from '../src/delivery-schema.js'
import { JPEG, PNG, body } from './wire-samples.js'
import { openTest, testSealer } from './fixtures.js'

function valid(input: Record<string, unknown>): ValidDelivery {
  const result = validateDelivery(input.event as (typeof WIRE_EVENTS)[number], input)
  if (!result.ok) throw result.error
  return result.value
}

const TYPE = { ORDER_ADD: 'OrderAdded', ORDER_UPDATE: 'OrderUpdated', ORDER_COMPLETE: 'OrderCompleted', ORDER_CANCELED: 'OrderCanceled' } as const

t.test('a command carries the open fields plus event_date, the personal ones sealed, and its deterministic id', async (t) => {
  const personal = { ORDER_ADD: ['customer', 'location', 'address'], ORDER_UPDATE: ['address'], ORDER_CANCELED: ['reason'] }
  for (const event of ['ORDER_ADD', 'ORDER_UPDATE', 'ORDER_CANCELED'] as const) {
    const delivery = valid(body(event))
    const command = toCommand('acme', delivery, testSealer)
    t.equal(command.type, event)
    const fields = delivery.payload as Record<string, unknown>
    const open = Object.fromEntries(Object.entries(fields).filter(([name]) => !personal[event].includes(name)))
    const sealed = Object.fromEntries(Object.entries(fields).filter(([name]) => personal[event].includes(name)))
    t.same(command.data, { ...open, event_date: '2025-02-27T08:00:00Z', personal: testSealer.personal(TYPE[event], sealed as never) })
    t.equal(command.eventId, eventIdFor('acme', event, command.data))
    t.same(openTest({ type: TYPE[event], data: command.data } as never).data, { ...fields, event_date: '2025-02-27T08:00:00Z' }, 'opened, the delivery again')
  }
})

t.test('a completion keeps image references, never the bytes or the data URL', async (t) => {
  const command = toCommand('acme', valid(body('ORDER_COMPLETE')), testSealer)
  t.match(command, {
    type: 'ORDER_COMPLETE',
    data: {
      pod: { media_type: 'image/jpeg', bytes: JPEG.length, blob: /^[0-9A-F]{64}$/ },
      signature: { media_type: 'image/png', bytes: PNG.length },
      personal: { key: 'test-key' },
    },
  })
  t.notMatch(JSON.stringify(command), /data:|R\. Doe/, 'no image, no personal value in the open')
  t.match(openTest({ type: 'OrderCompleted', data: command.data } as never).data, {
    recipient: 'R. Doe', pod: { media_type: 'image/jpeg', bytes: JPEG.length, sha256: /^[0-9a-f]{64}$/ }, signature: { media_type: 'image/png' },
  })
  const unsigned = toCommand('acme', valid(body('ORDER_COMPLETE', { signature: undefined })), testSealer)
  t.notOk('signature' in unsigned.data)
  t.not(unsigned.eventId, command.eventId)
})

t.test('the same delivery gives the same id; another account or any other field another id', async (t) => {
  const first = toCommand('acme', valid(body('ORDER_ADD')), testSealer)
  t.equal(toCommand('acme', valid(body('ORDER_ADD')), testSealer).eventId, first.eventId)
  t.not(toCommand('acme2', valid(body('ORDER_ADD')), testSealer).eventId, first.eventId)
  t.not(toCommand('acme', valid(body('ORDER_ADD', { address: '1 Quay Street ' })), testSealer).eventId, first.eventId)
  t.not(toCommand('acme', valid(body('ORDER_ADD', {}, { event_date: '2025-02-27T08:00:00.0Z' })), testSealer).eventId, first.eventId)
  t.equal(toCommand('acme', valid(body('ORDER_ADD', { ignored: 'x' })), testSealer).eventId, first.eventId, 'ignored fields do not count')
})

t.test('deliveryImages lists what must be stored before the event', async (t) => {
  t.same(deliveryImages(valid(body('ORDER_ADD'))), [])
  t.same(deliveryImages(valid(body('ORDER_COMPLETE'))).map((i) => i.media_type), ['image/jpeg', 'image/png'])
  t.same(deliveryImages(valid(body('ORDER_COMPLETE', { signature: '' }))).map((i) => i.media_type), ['image/jpeg'])
})

/** Strings the wire accepts: printable, not blank, within a length. */
const text = (max: number) =>
  fc
    .string({ unit: 'grapheme', minLength: 1, maxLength: max })
    // The wire's string rules, written out (docs/contract.md#strings): no control characters, a
    // length in code points (what a spread counts).
    // eslint-disable-next-line no-control-regex, @typescript-eslint/no-misused-spread -- see above
    .filter((s) => s.trim() !== '' && !/[\u0000-\u001f\u007f-\u009f]/.test(s) && [...s].length <= max)
const timestamp = fc
  .date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true })
  .map((d) => d.toISOString())

t.test('any generated valid ORDER_ADD passes validator and schema, and round-trips through toCommand (property)', async () => {
  fc.assert(
    fc.property(
      fc.record({
        // An order id is also never . or .. (docs/contract.md#strings).
        order_id: text(128).filter((id) => id !== '.' && id !== '..'),
        customer: text(1024),
        location: text(64),
        status: fc.constantFrom('pending', 'in_progress'),
        address: text(200),
        delivery_date: timestamp,
      }),
      timestamp,
      (payload, eventDate) => {
        const input = { event: 'ORDER_ADD', event_date: eventDate, event_payload: payload }
        const result = validateDelivery('ORDER_ADD', input)
        if (!result.ok || !Value.Check(DeliveryRequestSchema, input)) return false
        const command = toCommand('acme', result.value, testSealer)
        const opened = openTest({ type: 'OrderAdded', data: command.data } as never).data
        return canonicalJson(opened) === canonicalJson({ ...payload, event_date: eventDate })
      },
    ),
  )
})
