import t from 'tap'
import { categoryPrefixes, inCategories, isSystemName } from '../../src/eventstoredb/category-filter.js'

t.test('categories become stream-name prefixes, once each', async (t) => {
  t.same(categoryPrefixes(['order', 'key', 'order']), ['order', 'key'])
  t.same(categoryPrefixes([]), [])
})

t.test('a name that cannot be a category is refused', async (t) => {
  t.throws(() => categoryPrefixes(['']), RangeError)
  t.throws(() => categoryPrefixes(['order-acme']), /not a category/)
})

t.test('the exact check drops streams that only share the prefix', async (t) => {
  t.equal(inCategories('order-acme-42', ['order']), true)
  t.equal(inCategories('order', ['order']), true, 'a stream with no dash is its own category')
  t.equal(inCategories('orders-1', ['order']), false)
  t.equal(inCategories('key-acme', ['order', 'key']), true)
  t.equal(inCategories('key-acme', ['order']), false)
  t.equal(inCategories('anything-at-all', undefined), true)
  t.equal(inCategories('order-acme-42', []), false)
})

t.test('EventStoreDB\'s own streams and event types are recognised by their $', async (t) => {
  t.equal(isSystemName('$settings'), true)
  t.equal(isSystemName('$>'), true)
  t.equal(isSystemName('order-acme-1'), false)
  t.equal(isSystemName('OrderAdded'), false)
})
