import t from 'tap'
import { categoryOf, comparePositions, hashEvent, parsePosition, positionToString, START_POSITION } from '../src/index.js'

t.test('positions print as commit/prepare and parse back; a bare number means both', async (t) => {
  const position = { commit: 12345678901234567n, prepare: 12345678901234560n }
  t.same(parsePosition(positionToString(position)), position)
  t.equal(positionToString({ commit: 7n, prepare: 7n }), '7/7')
  t.same(parsePosition('42'), { commit: 42n, prepare: 42n })
  for (const bad of ['', '-1', '1/', 'x', '1/2/3', '1.5']) t.throws(() => parsePosition(bad), RangeError, bad)
})

t.test('positions order by commit, then prepare; START_POSITION comes first', async (t) => {
  t.equal(comparePositions({ commit: 1n, prepare: 9n }, { commit: 2n, prepare: 0n }), -1)
  t.equal(comparePositions({ commit: 2n, prepare: 1n }, { commit: 2n, prepare: 0n }), 1)
  t.equal(comparePositions({ commit: 2n, prepare: 2n }, { commit: 2n, prepare: 2n }), 0)
  t.equal(comparePositions(START_POSITION, { commit: 1n, prepare: 1n }), -1)
})

t.test('a category is the text before the first dash', async (t) => {
  t.equal(categoryOf('order-acme-A-1'), 'order')
  t.equal(categoryOf('keys'), 'keys')
  t.equal(categoryOf('-x'), '')
})

t.test('the hash covers stream, revision, id, type, data and metadata, in any key order', async (t) => {
  const base = { streamName: 's-1', revision: 0, id: 'e1', type: 'T', data: { a: 1, b: 2 }, metadata: { prev_hash: null } }
  t.match(hashEvent(base), /^[0-9a-f]{64}$/)
  t.equal(hashEvent({ ...base, data: { b: 2, a: 1 } }), hashEvent(base))
  for (const change of [{ streamName: 's-2' }, { revision: 1 }, { id: 'e2' }, { type: 'U' }, { data: { a: 1 } },
    { metadata: { prev_hash: 'f'.repeat(64) } }]) {
    t.not(hashEvent({ ...base, ...change }), hashEvent(base), JSON.stringify(change))
  }
})

t.test('the stored metadata is the appended metadata with prev_hash, in sorted place when the rest is in order', async (t) => {
  const { chainedMetadata } = await import('../src/hash-chain.js')
  const inOrder = { key_id: 'k', received_at: 'r', request_id: 'q', schema_version: 2 }
  const chained = chainedMetadata(inOrder, 'h')
  t.same(Object.keys(chained), ['key_id', 'prev_hash', 'received_at', 'request_id', 'schema_version'])
  t.same(chained, { ...inOrder, prev_hash: 'h' })
  t.same(Object.keys(chainedMetadata({ a: 1 }, null)), ['a', 'prev_hash'], 'last when every key sorts before it')
  t.same(Object.keys(chainedMetadata({ z: 1 }, null)), ['prev_hash', 'z'], 'first when every key sorts after it')
  t.same(chainedMetadata({ prev_hash: 'old', a: 1 }, 'new'), { a: 1, prev_hash: 'new' }, 'a prev_hash in the metadata is replaced, as a spread would')
  t.same(Object.keys(chainedMetadata({ prev_hash: 'old', a: 1 }, 'new')), ['a', 'prev_hash'])
  t.same(chainedMetadata({}, null), { prev_hash: null })
  t.same(chainedMetadata(undefined, null), { prev_hash: null }, 'an event appended without metadata')
})
