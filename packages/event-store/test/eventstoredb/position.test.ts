import t from 'tap'
import { fromClientPosition, isAfter, toClientPosition } from '../../src/eventstoredb/position.js'

t.test('positions keep both halves as bigints both ways', async (t) => {
  const port = { commit: 1_234_567_890_123n, prepare: 1_234_567_890_000n }
  const client = toClientPosition(port)
  t.same(client, port)
  t.not(client, port, 'a fresh object: the client may keep what it is given')
  t.same(fromClientPosition(client), port)
  t.equal(typeof fromClientPosition(client).commit, 'bigint')
})

t.test('isAfter is strict and orders by commit, then prepare', async (t) => {
  const at = { commit: 100n, prepare: 90n }
  t.equal(isAfter(at, at), false, 'the position itself is not after itself')
  t.equal(isAfter({ commit: 101n, prepare: 0n }, at), true)
  t.equal(isAfter({ commit: 99n, prepare: 95n }, at), false)
  t.equal(isAfter({ commit: 100n, prepare: 91n }, at), true)
  t.equal(isAfter({ commit: 100n, prepare: 89n }, at), false)
  t.equal(isAfter(at, null), true, 'everything is after the beginning')
  t.equal(isAfter(at, undefined), true)
})
