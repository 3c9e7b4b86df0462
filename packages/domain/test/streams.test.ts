import fc from 'fast-check'
import t from 'tap'
import { ACCOUNT_PATTERN, ALL_ACCOUNTS, isAccountId } from '../src/accounts.js'
import { ORDER_CATEGORY, parseOrderStreamName, streamNameFor } from '../src/streams.js'

t.test('an order stream is order-<account>-<order_id> in the order category', async (t) => {
  t.equal(streamNameFor('acme', 'A1'), 'order-acme-A1')
  t.equal(streamNameFor('acme', 'A1').split('-')[0], ORDER_CATEGORY)
})

t.test('order_ids holding "-" round-trip: the account never holds one', async (t) => {
  for (const orderId of ['A-1', '-', '--x--', 'order-acme-A1', ' spaced id ', 'ü-é-😀']) {
    t.same(parseOrderStreamName(streamNameFor('acme_2', orderId)), { account: 'acme_2', orderId })
  }
})

t.test('any account and any order_id round-trip (property)', async () => {
  fc.assert(
    fc.property(fc.stringMatching(ACCOUNT_PATTERN), fc.string({ minLength: 1, maxLength: 128 }), (account, orderId) => {
      const parsed = parseOrderStreamName(streamNameFor(account, orderId))
      return parsed !== null && parsed.account === account && parsed.orderId === orderId
    }),
  )
})

t.test('names that are not order streams parse to null', async (t) => {
  for (const name of ['order-acme', 'order-acme-', 'key-acme-A1', 'order--A1', 'order-Acme-A1', 'orders-acme-A1', '']) {
    t.equal(parseOrderStreamName(name), null, name)
  }
})

t.test('a bad account or an empty order_id is a programming error', async (t) => {
  t.throws(() => streamNameFor('ac-me', 'A1'), TypeError)
  t.throws(() => streamNameFor('', 'A1'), TypeError)
  t.throws(() => streamNameFor('ACME', 'A1'), TypeError)
  t.throws(() => streamNameFor('acme', ''), TypeError)
  t.ok(isAccountId('sandbox'))
  t.notOk(isAccountId('sand box'))
  t.ok(isAccountId('a'.repeat(64)), 'up to 64 characters')
  t.notOk(isAccountId('a'.repeat(65)), 'not 65')
  t.throws(() => streamNameFor('a'.repeat(65), 'A1'), TypeError)
})

t.test('the auditors\' "every account" is not an account: no stream name can hold it', async (t) => {
  t.equal(ALL_ACCOUNTS, '*')
  t.notOk(isAccountId(ALL_ACCOUNTS))
  t.throws(() => streamNameFor(ALL_ACCOUNTS, 'A1'), TypeError)
})
