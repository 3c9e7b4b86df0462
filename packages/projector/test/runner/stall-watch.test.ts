import t from 'tap'
import { stallWatch } from '../../src/runner/stall-watch.js'
import { STARTING, type ProjectionStatus } from '../../src/runner/status.js'

const at = (checkpoint: string | null, state: ProjectionStatus['state'], lag: number): ProjectionStatus =>
  ({ ...STARTING, state, checkpoint, lag })

t.test('a projection is stuck only after 30 s of failing, of not starting, or of events waiting with its checkpoint unmoved', async (t) => {
  let now = 0
  const watch = stallWatch(30_000, () => now)
  const orders = (status: ProjectionStatus) => watch({ orders: status, audit: null })

  t.same(orders(at(null, 'starting', 0)), [], 'starting: not yet stuck')
  now = 29_999
  t.same(orders(at(null, 'starting', 0)), [])
  now = 31_000
  t.same(orders(at(null, 'starting', 0)), [{ projection: 'orders', reason: 'orders projection not started after 31 s' }])

  now = 40_000
  t.same(orders(at('5/5', 'running', 100)), [], 'behind, but it moved')
  now = 60_000
  t.same(orders(at('9/9', 'running', 96)), [], 'still moving')
  now = 89_000
  t.same(orders(at('9/9', 'caught_up', 0)), [], 'unmoved, but nothing waits')
  now = 91_000
  t.same(orders(at('9/9', 'caught_up', 3)), [{ projection: 'orders', reason: 'orders projection stuck for 31 s with 3 events waiting' }],
    'events wait, and the checkpoint has not moved since 60 s')
  t.same(orders(at('10/10', 'caught_up', 2)), [], 'it moved again')

  now = 100_000
  t.same(orders(at('10/10', 'retrying', 2)), [], 'one failure is no stall')
  now = 110_000
  t.same(orders(at('10/10', 'starting', 2)), [], 'started again (a thread that died)')
  now = 120_000
  t.same(orders(at('10/10', 'retrying', 2)), [], 'and failing again: 29 s since it was last up')
  now = 122_500
  t.same(orders(at('10/10', 'retrying', 2)), [{ projection: 'orders', reason: 'orders projection failing for 32 s' }],
    'not up for 30 s, however often it flipped between starting and retrying')
  t.same(orders(at('10/10', 'stopped', 2)), [], 'a stopped projection is not judged')
})

t.test('each projection is judged on its own', async (t) => {
  let now = 0
  const watch = stallWatch(1_000, () => now)
  const ok = at('1/1', 'caught_up', 0)
  t.same(watch({ orders: ok, audit: { ...at('1/1', 'retrying', 1), treeSize: 1, headSize: 1, problem: null } }), [])
  now = 2_000
  t.same(watch({ orders: ok, audit: { ...at('1/1', 'retrying', 1), treeSize: 1, headSize: 1, problem: null } }),
    [{ projection: 'audit', reason: 'audit projection failing for 2 s' }])
})
