import t from 'tap'
import { encodeSegment, objectAt, pointerSegments, valueAt } from '../src/json-pointer.js'

t.test('segments are escaped and unescaped as RFC 6901 says', async (t) => {
  t.equal(encodeSegment('a/b~c'), 'a~1b~0c')
  t.same(pointerSegments('/a~1b~0c/d'), ['a/b~c', 'd'])
  t.same(pointerSegments(''), [], 'the whole document')
  t.same(pointerSegments('/'), [''], 'the member named by the empty string')
})

t.test('a pointer names a value, or nothing', async (t) => {
  const root = { a: { 'b/c': [10, 20] } }
  t.equal(valueAt(root, '/a/b~1c/1'), 20)
  t.equal(valueAt(root, ''), root)
  t.equal(valueAt(root, '/x/y'), undefined, 'through a member that is not there')
  t.equal(valueAt(root, '/a/b~1c/0/z'), undefined, 'through a number')
  t.same(objectAt(root, '/a'), { 'b/c': [10, 20] })
  t.same(objectAt(root, '/a/b~1c/0'), {}, 'not an object: an empty one')
})
