import t from 'tap'
import Type, { type TSchema } from 'typebox'
import { ORDER_STATUSES } from '../src/statuses.js'
import {
  accountId, choice, image, integer, orderId, orderStatus, pageSize, text, timestamp, wireStatus,
} from '../src/wire-fields.js'
import { compileWireValidator } from '../src/wire-validator.js'
import { dataUrl, PNG } from './wire-samples.js'

/** 'ok', or the words a field built this way refuses `value` with. */
function wordsFor(schema: TSchema, value: unknown): string {
  const checked = compileWireValidator(schema, { convert: false })(value)
  return checked.error === undefined ? 'ok' : checked.error.detail ?? ''
}

t.test('a field has no objection to a valid value', async (t) => {
  t.equal(wordsFor(text('x', 5), 'hello'), 'ok')
  t.equal(wordsFor(timestamp('x'), '2025-01-01T00:00:00Z'), 'ok')
  t.equal(wordsFor(wireStatus(), 'pending'), 'ok')
  t.equal(wordsFor(image('x'), dataUrl('image/png', PNG)), 'ok')
  t.equal(wordsFor(Type.Object({}), {}), 'ok')
})

t.test('each field names what is wrong, in the words on its schema', async (t) => {
  t.equal(wordsFor(text('x', 5), 'hello!'), 'must be at most 5 characters')
  t.equal(wordsFor(timestamp('x'), 1), 'must be a string')
  t.equal(wordsFor(timestamp('x'), '2025-01-01'), 'must be YYYY-MM-DDTHH:MM:SSZ in UTC (up to 9 fraction digits; no offset)')
  t.equal(wordsFor(timestamp('x'), '2025-02-29T00:00:00Z'), 'is not a real calendar time')
  t.equal(wordsFor(wireStatus(), 1), 'must be a string')
  t.equal(wordsFor(wireStatus(), 'done'), 'must be pending or in_progress')
  t.equal(wordsFor(image('x'), 1), 'must be a string')
  t.equal(wordsFor(image('x'), 'data:image/png;base64,'), 'bytes are not a image/png image', 'the decoder names the reason')
  for (const value of [[], null, 'x']) t.equal(wordsFor(Type.Object({}), value), 'must be an object')
})

t.test('what the read API asks of its parameters', async (t) => {
  t.equal(wordsFor(orderId(), 'x'.repeat(128)), 'ok')
  t.equal(wordsFor(orderId(), 'x'.repeat(129)), 'must be at most 128 characters')
  for (const dots of ['.', '..']) t.equal(wordsFor(orderId(), dots), 'must not be . or .. (a URL path would drop it)', dots)
  for (const fine of ['...', '.a', 'a.', 'a/..']) t.equal(wordsFor(orderId(), fine), 'ok', fine)
  t.equal(wordsFor(text('customer'), 'y'.repeat(1025)), 'must be at most 1024 characters')
  t.equal(wordsFor(orderStatus('x'), 'completed'), 'ok')
  t.equal(wordsFor(orderStatus('x'), 'lost'), `must be one of ${ORDER_STATUSES.join(', ')}`)
  t.equal(wordsFor(choice(['json', 'csv'], 'x'), 'xml'), 'must be json or csv')
  t.equal(wordsFor(accountId('x'), 'acme_1'), 'ok')
  t.equal(wordsFor(accountId('x'), 'Acme-1'), 'must be lower-case letters, digits and _ (at most 64 characters)')
  t.equal(wordsFor(accountId('x'), 'a'.repeat(65)), 'must be lower-case letters, digits and _ (at most 64 characters)')
  t.equal(wordsFor(integer('x', 0), 0), 'ok')
  t.equal(wordsFor(integer('x', 0), -1), 'must be at least 0')
  t.equal(wordsFor(integer('x', 0), 1.5), 'must be an integer')
  t.equal(wordsFor(integer('x', 1, 3), 4), 'must be at most 3')
  t.equal(wordsFor(pageSize('x', 500, 50), 500), 'ok')
  t.equal(wordsFor(pageSize('x', 500, 50), 501), 'must be at most 500')
  t.equal(wordsFor(pageSize('x', 500, 50), 0), 'must be at least 1')
  t.equal((pageSize('x', 500, 50) as { readonly default?: unknown }).default, 50)
})

t.test('the OpenAPI document shows each rule with its words', async (t) => {
  const document = JSON.parse(JSON.stringify(Type.Object({ order_id: orderId(), since: timestamp('Since'), limit: pageSize('Per page', 500, 50) }))) as {
    properties: Record<string, { type: string; allOf: Array<Record<string, unknown>>; default?: number }>
  }
  t.same(document.properties.order_id?.allOf.map((rule) => rule['x-error-message']), [
    'must not be empty', 'must be at most 128 characters', 'must not contain control characters', 'must be well-formed Unicode (no lone surrogate)',
    'must not be . or .. (a URL path would drop it)',
  ])
  t.match(document.properties.since?.allOf, [{ pattern: String }, { format: 'utc-timestamp', 'x-error-message': 'is not a real calendar time' }])
  t.match(document.properties.limit, { type: 'integer', default: 50, allOf: [{ minimum: 1 }, { maximum: 500 }] })
})
