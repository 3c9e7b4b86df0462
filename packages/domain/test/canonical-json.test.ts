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

// The reference: every object's keys sorted, written the obvious way (an object cannot hold
// them sorted: integer-like keys always enumerate first, in numeric order).
function reference(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => reference(item ?? null)).join(',')}]`
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  const object = value as Record<string, unknown>
  const members = Object.keys(object).sort().filter((key) => object[key] !== undefined)
  return `{${members.map((key) => `${JSON.stringify(key)}:${reference(object[key])}`).join(',')}}`
}

t.test('values already in key order and values out of order give the same text as the reference', async (t) => {
  const values: unknown[] = [
    'plain', 12.5, -0, true, null, [], {}, [1, 'a', null, [true]],
    { a: 1, b: { c: [1, { d: 'x', e: null }], f: false } },
    { b: 1, a: 2 },
    { a: { z: 1, y: 2 } },
    { a: [{ b: 1, a: 2 }] },
    { a: 1, b: undefined, c: 3 },
    { a: [1, undefined, 3] },
    { a: Number.NaN, b: Number.POSITIVE_INFINITY },
    { 1: 'one', 2: 'two', 10: 'ten' },
    { a: '\u2028 "quoted" \\ \ud800', é: 'accent', Z: 'upper' },
    { data: { order_id: 'A-1', pod: { bytes: 10, media_type: 'image/png', sha256: 'ab' } }, event_date: '2025-01-01T00:00:00Z', revision: 3 },
  ]
  for (const [index, value] of values.entries()) t.equal(canonicalJson(value), reference(value), `value ${index}`)
})

t.test('values JSON.stringify would treat differently take the sorting path', async (t) => {
  // A Date has a toJSON that JSON.stringify calls; written canonical, it is an object with no own keys.
  t.equal(canonicalJson({ at: new Date(0) }), '{"at":{}}')
  t.equal(canonicalJson(Object.assign(Object.create(null) as object, { b: 1, a: 2 })), '{"a":2,"b":1}')
  class Items extends Array<number> {
    toJSON(): string { return 'not an array' }
  }
  t.equal(canonicalJson({ list: Items.from([2, 1]) }), '{"list":[2,1]}')
  class Numbers extends Array<number> {}
  t.equal(canonicalJson({ list: Numbers.from([2, 1]) }), '{"list":[2,1]}', 'an array of a subclass is written as an array')
  const listWithToJson = Object.assign([1, 2], { toJSON: () => 'x' })
  t.equal(canonicalJson({ a: listWithToJson }), '{"a":[1,2]}', 'an own toJSON on an array is not called')
  const hiddenToJson = Object.defineProperty({ a: 1 }, 'toJSON', { value: () => 'x', enumerable: false })
  t.equal(canonicalJson(hiddenToJson), '{"a":1}', 'nor a toJSON that is not enumerable')
  t.throws(() => canonicalJson({ f: () => 1 }), TypeError)
  t.throws(() => canonicalJson({ s: Symbol('s') }), TypeError)
})
