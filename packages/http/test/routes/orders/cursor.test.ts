import t from 'tap'
import { WaybillError } from '@waybill/domain'
import { decodeAuditCursor, decodeCursor, encodeAuditCursor, encodeCursor } from '../../../src/routes/orders/cursor.js'

const pending = { status: 'pending' } as const
const rejected = (cursor: string, filters: object, detail: RegExp) => {
  try {
    decodeCursor(cursor, filters)
  } catch (error) {
    return error instanceof WaybillError && error.code === 'bad_request' && detail.test(error.detail ?? '')
  }
  return false
}
const wrap = (text: string): string => Buffer.from(text).toString('base64url')

t.test('a cursor gives back the order_id it was made from, for the same filters', async (t) => {
  t.equal(decodeCursor(encodeCursor('ord-1', pending), { status: 'pending' }), 'ord-1')
  t.equal(decodeCursor(encodeCursor('ord-1', {}), {}), 'ord-1')
  const longest = '😀'.repeat(128)
  t.equal(decodeCursor(encodeCursor(longest, pending), pending), longest, 'an order_id of 128 code points')
  const all = { status: 'canceled', customer: 'c', location: 'l', updatedSince: '2025-01-01T00:00:00.000000000Z' } as const
  t.equal(decodeCursor(encodeCursor('x', all), { ...all }), 'x')
})

t.test('a cursor for other filters is a bad_request', async (t) => {
  const cursor = encodeCursor('ord-1', pending)
  for (const other of [{}, { status: 'completed' }, { ...pending, customer: 'c' }, { ...pending, location: 'l' },
    { ...pending, updatedSince: '2025-01-01T00:00:00.000000000Z' }]) {
    t.ok(rejected(cursor, other, /for these filters/), JSON.stringify(other))
  }
  // Values are not run together: customer "ab" + location "c" is not customer "a" + location "bc".
  t.ok(rejected(encodeCursor('o', { customer: 'ab', location: 'c' }), { customer: 'a', location: 'bc' }, /for these filters/))
  t.ok(rejected(encodeCursor('o', { customer: 'c' }), { location: 'c' }, /for these filters/))
})

t.test('only the exact form this API writes is a cursor', async (t) => {
  const issued = JSON.parse(Buffer.from(encodeCursor('ord-1', pending), 'base64url').toString('utf8')) as Record<string, unknown>
  const forms = [
    '', 'garbage', wrap('null'), wrap('[]'), wrap('"ord-1"'), wrap('{}'),
    wrap(JSON.stringify({ v: 1, after: 'ord-1' })),
    wrap(JSON.stringify({ v: 1, after: '' })),
    wrap(JSON.stringify({ ...issued, after: '' })),
    wrap(JSON.stringify({ ...issued, after: 'x'.repeat(129) })),
    wrap(JSON.stringify({ ...issued, after: '😀'.repeat(129) })),
    wrap(JSON.stringify({ ...issued, after: 7 })),
    wrap(JSON.stringify({ ...issued, after: null })),
    wrap(JSON.stringify({ ...issued, v: 3 })),
    wrap(JSON.stringify({ ...issued, extra: 1 })),
    wrap(JSON.stringify({ v: issued.v, after: issued.after })),
    wrap(JSON.stringify(issued, null, 2)),
    wrap(JSON.stringify(Object.fromEntries(Object.entries(issued).reverse()))),
    `${encodeCursor('ord-1', pending)}=`,
    Buffer.from(JSON.stringify(issued)).toString('base64'),
  ]
  for (const form of forms) t.ok(rejected(form, pending, /not a cursor this API returned/), Buffer.from(form, 'base64url').toString('utf8'))
})

const auditRejected = (cursor: string, filters: object, detail: RegExp) => {
  try {
    decodeAuditCursor(cursor, filters)
  } catch (error) {
    return error instanceof WaybillError && error.code === 'bad_request' && detail.test(error.detail ?? '')
  }
  return false
}

t.test('an auditor\'s cursor gives back the account and order_id it was made from, for the same filters', async (t) => {
  const last = { account: 'acme', orderId: 'ord-1' }
  t.same(decodeAuditCursor(encodeAuditCursor(last, {}), {}), last)
  t.same(decodeAuditCursor(encodeAuditCursor(last, { account: 'acme', ...pending }), { account: 'acme', status: 'pending' }), last)
  t.ok(auditRejected(encodeAuditCursor(last, {}), { account: 'acme' }, /for these filters/), 'narrowed to an account since')
  t.ok(auditRejected(encodeAuditCursor(last, { account: 'acme' }), { account: 'globex' }, /for these filters/))
  t.ok(auditRejected(encodeAuditCursor(last, pending), {}, /for these filters/))
})

t.test('a tenant cursor is no auditor cursor, and the other way round', async (t) => {
  t.ok(auditRejected(encodeCursor('ord-1', pending), pending, /not a cursor this API returned$/))
  t.ok(rejected(encodeAuditCursor({ account: 'acme', orderId: 'ord-1' }, pending), pending, /not a cursor this API returned$/))
})

t.test('only the exact form this API writes is an auditor cursor', async (t) => {
  const issued = JSON.parse(Buffer.from(encodeAuditCursor({ account: 'acme', orderId: 'ord-1' }, pending), 'base64url').toString('utf8')) as Record<string, unknown>
  const forms = [
    '', 'garbage', wrap('null'), wrap('{}'),
    wrap(JSON.stringify({ ...issued, account: 'Acme' })),
    wrap(JSON.stringify({ ...issued, account: '*' })),
    wrap(JSON.stringify({ ...issued, account: 7 })),
    wrap(JSON.stringify({ ...issued, after: '' })),
    wrap(JSON.stringify({ ...issued, after: 7 })),
    wrap(JSON.stringify({ ...issued, after: 'x'.repeat(129) })),
    wrap(JSON.stringify({ ...issued, v: 3 })),
    wrap(JSON.stringify({ ...issued, filters: 1 })),
    wrap(JSON.stringify({ ...issued, extra: 1 })),
    wrap(JSON.stringify(Object.fromEntries(Object.entries(issued).reverse()))),
  ]
  for (const form of forms) t.ok(auditRejected(form, pending, /not a cursor this API returned$/), Buffer.from(form, 'base64url').toString('utf8'))
})
