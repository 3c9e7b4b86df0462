import t from 'tap'
import type { WireEvent } from '../src/commands.js'
import { LIMITS } from '../src/limits.js'
import { validateDelivery } from '../src/validate-delivery.js'
import { body } from './wire-samples.js'

const check = (event: WireEvent, field: string, value: string) => validateDelivery(event, body(event, { [field]: value }))
const detailOf = (event: WireEvent, field: string, value: string) => {
  const result = check(event, field, value)
  return result.ok ? 'ok' : result.error.detail
}

const TEXT_FIELDS: ReadonlyArray<[WireEvent, string]> = [
  ['ORDER_ADD', 'customer'],
  ['ORDER_ADD', 'location'],
  ['ORDER_ADD', 'address'],
  ['ORDER_UPDATE', 'address'],
  ['ORDER_COMPLETE', 'address'],
  ['ORDER_COMPLETE', 'recipient'],
  ['ORDER_CANCELED', 'reason'],
]

t.test('order_id: 128 characters pass, 129 fail, in every event', async (t) => {
  for (const event of ['ORDER_ADD', 'ORDER_UPDATE', 'ORDER_COMPLETE', 'ORDER_CANCELED'] as const) {
    t.equal(detailOf(event, 'order_id', 'x'.repeat(LIMITS.orderIdMaxLength)), 'ok')
    t.equal(detailOf(event, 'order_id', 'x'.repeat(129)), 'event_payload.order_id: must be at most 128 characters')
  }
})

t.test('lengths count code points: 128 emoji pass as an order_id, 129 fail', async (t) => {
  t.equal(detailOf('ORDER_ADD', 'order_id', '😀'.repeat(128)), 'ok')
  t.equal(detailOf('ORDER_ADD', 'order_id', '😀'.repeat(129)), 'event_payload.order_id: must be at most 128 characters')
  t.equal(detailOf('ORDER_ADD', 'order_id', `${'😀'.repeat(127)}ab`), 'event_payload.order_id: must be at most 128 characters')
})

t.test('other strings: 1024 characters pass, 1025 fail', async (t) => {
  for (const [event, field] of TEXT_FIELDS) {
    t.equal(detailOf(event, field, 'y'.repeat(LIMITS.stringMaxLength)), 'ok', `${event}.${field} 1024`)
    t.equal(detailOf(event, field, 'y'.repeat(1025)), `event_payload.${field}: must be at most 1024 characters`)
  }
  t.equal(detailOf('ORDER_CANCELED', 'reason', 'y'.repeat(LIMITS.bodyMaxBytes / 4)), 'event_payload.reason: must be at most 1024 characters')
})

t.test('required strings must not be blank', async (t) => {
  for (const [event, field] of [...TEXT_FIELDS, ['ORDER_ADD', 'order_id'] as const]) {
    for (const blank of ['', ' ', '   ', '\u00a0', '\u3000', '\ufeff']) {
      t.equal(detailOf(event, field, blank), `event_payload.${field}: must not be empty`, `${event}.${field} ${JSON.stringify(blank)}`)
    }
  }
})

t.test('values are kept as sent, surrounding spaces included', async (t) => {
  const result = check('ORDER_CANCELED', 'reason', '  moved away  ')
  t.ok(result.ok && result.value.payload.order_id === 'A-1001' && 'reason' in result.value.payload && result.value.payload.reason === '  moved away  ')
})

t.test('control characters (C0, DEL, C1) are refused anywhere in a string', async (t) => {
  for (const control of ['\u0000', '\u0001', '\t', '\n', '\r', '\u001f', '\u007f', '\u0080', '\u0085', '\u009f']) {
    for (const [event, field] of [...TEXT_FIELDS, ['ORDER_UPDATE', 'order_id'] as const]) {
      t.equal(detailOf(event, field, `a${control}b`), `event_payload.${field}: must not contain control characters`)
    }
  }
})

t.test('printable non-ASCII passes: no-break space, accents, emoji, U+00A0 to U+00FF', async (t) => {
  for (const value of ['Zoë\u00a0Ørsted', 'München 😀', '\u00a0x', 'x\u00ff', 'ｘ']) t.equal(detailOf('ORDER_CANCELED', 'reason', value), 'ok')
})

t.test('a lone surrogate is refused: it cannot be stored as UTF-8', async (t) => {
  for (const value of ['a\ud800', '\udc00b', 'x\ud83dy']) {
    t.equal(detailOf('ORDER_CANCELED', 'reason', value), 'event_payload.reason: must be well-formed Unicode (no lone surrogate)')
  }
})
