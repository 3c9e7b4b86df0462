import t from 'tap'
import { canonicalJson } from '../src/canonical-json.js'

t.test('sorts keys at every depth and drops undefined members', async (t) => {
  t.equal(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: undefined } }), '{"a":{"d":[1,{"y":2,"z":1}]},"b":1}')
})

t.test('equal values give equal text whatever the key order', async (t) => {
  t.equal(canonicalJson({ x: 'a', y: null }), canonicalJson({ y: null, x: 'a' }))
})

t.test('undefined inside arrays becomes null, as in JSON', async (t) => {
  t.equal(canonicalJson([undefined, 'a']), '[null,"a"]')
})

t.test('a value JSON cannot hold is refused', async (t) => {
  t.throws(() => canonicalJson(undefined), TypeError)
  t.throws(() => canonicalJson(() => 1), TypeError)
})
