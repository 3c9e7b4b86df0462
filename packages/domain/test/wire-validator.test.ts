import t from 'tap'
import Type from 'typebox'
import { LIMITS } from '../src/limits.js'
import { pageSize, text, timestamp } from '../src/wire-fields.js'
import { formatRefusal, IMAGE_FORMAT, TIMESTAMP_FORMAT } from '../src/wire-formats.js'
import { compileWireValidator } from '../src/wire-validator.js'
import { dataUrl, PNG } from './wire-samples.js'

const ListQuery = Type.Object({
  customer: Type.Optional(text('Only this customer\'s orders')),
  updated_since: Type.Optional(timestamp('Orders updated at or after')),
  limit: Type.Optional(pageSize('Orders per page', LIMITS.ordersPageMax, LIMITS.ordersPageDefault)),
}, { additionalProperties: false, 'x-error-message': 'is not a parameter of this list' })

const query = compileWireValidator(ListQuery, { convert: true })

t.test('a query string is converted to the declared types, defaults filled in', async (t) => {
  t.same(query({}), { value: { limit: 50 } })
  t.same(query({ limit: '7', customer: 'C-1' }), { value: { limit: 7, customer: 'C-1' } })
  t.same(query({ limit: '-0' }).error?.detail, 'limit: must be an integer', 'a number must read back as the text sent')
  for (const sent of ['1.5', '0x10', '1e2', '007', ' 5', 'abc', '']) {
    t.match(query({ limit: sent }), { error: { code: 'bad_request', detail: /^limit: must be / } }, JSON.stringify(sent))
  }
  t.equal(query({ limit: '1.5' }).error?.detail, 'limit: must be an integer', 'not truncated to 1')
  t.equal(query({ limit: '0' }).error?.detail, 'limit: must be at least 1')
  t.equal(query({ limit: '501' }).error?.detail, 'limit: must be at most 500')
  t.equal(query({ limit: ['1', '2'] }).error?.detail, 'limit: must be an integer', 'a parameter given twice')
  t.equal(query(null).error?.detail, 'must be an object', 'the whole part wrong: no field to name')
})

t.test('a body is checked as sent: nothing is converted', async (t) => {
  const body = compileWireValidator(ListQuery, { convert: false })
  t.equal(body({ limit: '7' }).error?.detail, 'limit: must be an integer')
  t.same(body({}), { value: {} }, 'no default filled in either')
})

t.test('a refusal names the first wrong field in schema order and lists every one with its pointer', async (t) => {
  const refused = query({ limit: '0', other: 'x', updated_since: '2025-02-30T00:00:00Z', customer: ' ' })
  t.match(refused, {
    error: {
      code: 'bad_request',
      status: 400,
      detail: 'customer: must not be empty',
      errors: [
        { pointer: '/customer', field: 'customer', detail: 'must not be empty' },
        { pointer: '/updated_since', field: 'updated_since', detail: 'is not a real calendar time' },
        { pointer: '/limit', field: 'limit', detail: 'must be at least 1' },
        { pointer: '/other', field: 'other', detail: 'is not a parameter of this list' },
      ],
    },
  })
  t.equal(refused.error?.errors.length, 4, 'each field once, the extra one last')
})

t.test('nested fields are named by their dotted path; a schema without words still answers', async (t) => {
  const check = compileWireValidator(Type.Object({
    outer: Type.Object({ 'a/b': Type.Literal('x'), never: Type.Optional(Type.Never()) }),
    nested: Type.Optional(Type.Object({}, { additionalProperties: false })),
  }), { convert: false })
  t.match(check({ outer: { 'a/b': 'y', never: 1 }, nested: { z: 1 } }), {
    error: {
      detail: 'outer.a/b: is not valid',
      errors: [
        { pointer: '/outer/a~1b', field: 'outer.a/b', detail: 'is not valid' },
        { pointer: '/outer/never', field: 'outer.never', detail: 'is not valid' },
        { pointer: '/nested/z', field: 'nested.z', detail: 'is not valid' },
      ],
    },
  })
  t.equal(check({ outer: {} }).error?.detail, 'outer.a/b: is required')
})

t.test('a format names its own reason where it can', async (t) => {
  t.equal(formatRefusal(IMAGE_FORMAT, 'data:image/png;base64,'), 'bytes are not a image/png image')
  t.equal(formatRefusal(IMAGE_FORMAT, dataUrl('image/png', PNG)), undefined, 'an image it accepts')
  t.equal(formatRefusal(IMAGE_FORMAT, 7), undefined, 'not text at all')
  t.equal(formatRefusal(TIMESTAMP_FORMAT, 'x'), undefined, 'a format whose schema carries the words')
})
