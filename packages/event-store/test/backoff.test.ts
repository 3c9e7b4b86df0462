import t from 'tap'
import { backoffDelay } from '../src/index.js'

t.test('waits double from the initial delay up to the cap', async (t) => {
  const top = { initialMs: 100, maxMs: 1_000, random: () => 1 }
  t.same([0, 1, 2, 3, 4, 10, 100].map((n) => backoffDelay(n, top)), [100, 200, 400, 800, 1_000, 1_000, 1_000])
})

t.test('jitter stays within the upper half of each step', async (t) => {
  const bottom = { initialMs: 100, maxMs: 1_000, random: () => 0 }
  t.same([0, 1, 2, 3, 4].map((n) => backoffDelay(n, bottom)), [50, 100, 200, 400, 500])
  for (let i = 0; i < 50; i += 1) {
    const delay = backoffDelay(3, { initialMs: 100, maxMs: 10_000 })
    t.ok(delay >= 400 && delay <= 800, `${delay} within [400, 800]`)
  }
})

t.test('defaults: 100 ms first, 30 s at most', async (t) => {
  t.equal(backoffDelay(0, { random: () => 1 }), 100)
  t.equal(backoffDelay(1_000, { random: () => 1 }), 30_000)
})
