import t from 'tap'
import type { SubjectKeyStore } from '../src/index.js'

/**
 * What every subject key store keeps (the SQLite one, the in-memory one): run by each adapter's
 * test with a fresh, empty store from `open`.
 */
export function keyStoreContract(name: string, open: (t: { teardown(fn: () => unknown): void }) => Promise<SubjectKeyStore>): void {
  t.test(`${name}: a key is made once per order, with its customer, and found again`, async (t) => {
    const keys = await open(t)
    t.equal(keys.get('acme', 'A-1'), null, 'none before')
    const made = await keys.create('acme', 'A-1', 'Ada')
    if (made === 'erased') throw new Error('a new key was erased')
    t.equal(made.secret.length, 32)
    t.same(keys.get('acme', 'A-1'), made)
    t.same(await keys.create('acme', 'A-1', 'someone else'), made, 'the second create returns the first key')
    t.equal(await keys.customerOf('acme', 'A-1'), 'Ada', 'and kept the first customer')
    const other = await keys.create('globex', 'A-1', 'Ada')
    t.not((other as { id: string }).id, made.id, 'another account, another order, another key')
    const concurrent = await Promise.all(Array.from({ length: 20 }, (_, i) => keys.create('acme', `B-${i % 4}`, `C-${i}`)))
    t.equal(new Set(concurrent.map((key) => (key as { id: string }).id)).size, 4, 'concurrent creates of one order agree on one key')
    const many = await keys.createMany([{ account: 'acme', orderId: 'M-1', customer: 'Mia' }, { account: 'acme', orderId: 'A-1', customer: 'x' }, { account: 'acme', orderId: 'M-2', customer: 'Mia' }])
    t.same(many[1], made, 'createMany returns an existing key as it is')
    t.same(many[0], keys.get('acme', 'M-1'))
    t.same(await keys.ordersOf('acme', 'Mia'), ['M-1', 'M-2'])
  })

  t.test(`${name}: a customer's orders, and an erasure that destroys keys once`, async (t) => {
    const keys = await open(t)
    for (const order of ['A-2', 'A-1', 'A-3']) await keys.create('acme', order, 'Ada')
    await keys.create('acme', 'B-1', 'Bob')
    await keys.create('globex', 'G-1', 'Ada')
    t.same(await keys.ordersOf('acme', 'Ada'), ['A-1', 'A-2', 'A-3'])
    t.same(await keys.ordersOf('acme', 'Nobody'), [])
    t.equal(await keys.customerErased('acme', 'Ada'), false, 'no erasure yet')
    const note = { at: '2026-01-01T00:00:00Z', scope: 'customer', requestedBy: 'dpo@example.com', reason: 'ticket 42' } as const
    const outcomes = await keys.erase('acme', ['A-1', 'A-2', 'nope'], note)
    t.same([...outcomes], [['A-1', 'erased'], ['A-2', 'erased'], ['nope', 'unknown']])
    t.equal(keys.get('acme', 'A-1'), 'erased')
    t.equal(await keys.customerOf('acme', 'A-1'), null, 'the customer is gone with the key')
    t.same(await keys.ordersOf('acme', 'Ada'), ['A-3'], 'an erased order is no longer the customer\'s')
    t.equal(await keys.customerErased('acme', 'Ada'), true, 'the customer is known erased')
    t.equal(await keys.customerErased('globex', 'Ada'), false, 'in that account only')
    t.equal(await keys.customerErased('acme', 'Bob'), false)
    t.same(await keys.erasures(), [{ account: 'acme', orderId: 'A-1', ...note }, { account: 'acme', orderId: 'A-2', ...note }], 'each destroyed key keeps its note')
    t.same([...await keys.erase('acme', ['A-1'], { ...note, at: '2026-01-02T00:00:00Z' })], [['A-1', 'already_erased']])
    t.equal((await keys.erasures()).length, 2, 'a second erasure changes no note')
    t.equal(await keys.create('acme', 'A-1', 'Ada'), 'erased', 'an erased order gets no new key')
    t.not(keys.get('globex', 'G-1'), 'erased', 'another account untouched')
    t.not(keys.get('acme', 'B-1'), 'erased', 'another customer untouched')
  })

  t.test(`${name}: getMany answers what get answers, for each order in the order asked`, async (t) => {
    const keys = await open(t)
    t.same(keys.getMany([]), [], 'nothing asked, nothing answered')
    const made = await keys.createMany(Array.from({ length: 1200 }, (_, i) => ({ account: i % 2 === 0 ? 'acme' : 'globex', orderId: `O-${i}`, customer: 'Ada' })))
    await keys.erase('acme', ['O-4'], { at: '2026-01-01T00:00:00Z', scope: 'order', requestedBy: 'dpo@example.com', reason: 'asked' })
    // Many orders in one call (one JSON parameter, whatever their number), repeated and missing
    // ones among them, and names that need escaping in JSON.
    const asked = [
      ...Array.from({ length: 1200 }, (_, i) => ({ account: (1199 - i) % 2 === 0 ? 'acme' : 'globex', orderId: `O-${1199 - i}` })),
      { account: 'acme', orderId: 'O-4' }, { account: 'acme', orderId: 'O-1' }, { account: 'acme', orderId: 'nope "\\ \u00e9' },
      { account: 'globex', orderId: 'O-1' },
    ]
    const answers = keys.getMany(asked)
    t.same(answers, asked.map((order) => keys.get(order.account, order.orderId)))
    t.equal(answers[1195], 'erased', 'an erased order')
    t.equal(answers[1201], null, 'an order of another account')
    t.equal(answers[1202], null, 'an order the store does not know')
    t.same(answers[1203], made[1], 'a repeated order, found again')
    t.equal(answers.filter((answer) => answer !== null && answer !== 'erased').length, 1199 + 1, 'every other order its key')
  })
}
