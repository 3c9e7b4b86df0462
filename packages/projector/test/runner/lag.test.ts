import t from 'tap'
import type { Position } from '@waybill/event-store'
import { LAG_COUNT_LIMIT, lagCounter } from '../../src/runner/lag.js'

t.test('lag is counted when caught up, and at most once a second while behind', async (t) => {
  let clock = 10_000
  const asked: Array<Position | null> = []
  const count = lagCounter({
    headPosition: async () => ({ commit: 40n, prepare: 40n }),
    countAfter: async (after, limit) => {
      asked.push(after)
      t.equal(limit, LAG_COUNT_LIMIT)
      return 40 - Number(after?.commit ?? 0n)
    },
  }, () => clock)
  t.same(await count(null, false), { head: { commit: 40n, prepare: 40n }, events: 40 }, 'the first batch is counted')
  clock += 500
  t.equal(await count({ commit: 10n, prepare: 10n }, false), undefined, 'behind, half a second later: not counted')
  t.same(await count({ commit: 12n, prepare: 12n }, true), { head: { commit: 40n, prepare: 40n }, events: 28 }, 'caught up: counted')
  clock += 999
  t.equal(await count({ commit: 20n, prepare: 20n }, false), undefined)
  clock += 1
  t.equal((await count({ commit: 30n, prepare: 30n }, false))?.events, 10, 'a second after the last count')
  t.same(asked, [null, { commit: 12n, prepare: 12n }, { commit: 30n, prepare: 30n }])
})
