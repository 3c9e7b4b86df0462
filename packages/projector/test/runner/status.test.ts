import t from 'tap'
import { isUp, nextStatus, STARTING } from '../../src/runner/status.js'

const at = (n: bigint) => ({ commit: n, prepare: n })

t.test('a status follows its loop: batches, a failure, the next batch, the stop', async (t) => {
  t.equal(isUp(STARTING), false, 'not up before its first batch')
  const running = nextStatus(STARTING, { kind: 'batch', path: '/d/read-model.sqlite', checkpoint: at(7n), applied: 5, caughtUp: false })
  t.same(running, { state: 'running', path: '/d/read-model.sqlite', checkpoint: '7/7', head: null, lag: 0, appliedEvents: 5, lastError: null })
  t.equal(isUp(running), true)
  const counted = nextStatus(running, { kind: 'batch', path: '/d/read-model.sqlite', checkpoint: at(9n), applied: 2, caughtUp: true, lag: { head: at(9n), events: 0 } })
  t.match(counted, { state: 'caught_up', checkpoint: '9/9', head: '9/9', lag: 0, appliedEvents: 7 })
  const failed = nextStatus(counted, { kind: 'failed', error: new Error('database or disk is full') })
  t.match(failed, { state: 'retrying', lastError: 'database or disk is full', checkpoint: '9/9', appliedEvents: 7 }, 'the rest is kept')
  t.equal(isUp(failed), false)
  t.equal(nextStatus(failed, { kind: 'failed', error: 'a string' }).lastError, 'a string')
  const uncounted = nextStatus(failed, { kind: 'batch', path: '/d/read-model.sqlite', checkpoint: null, applied: 0, caughtUp: true })
  t.match(uncounted, { state: 'caught_up', lastError: null, checkpoint: null, head: '9/9', lag: 0 }, 'a batch clears the error; an uncounted lag stays')
  const noHead = nextStatus(uncounted, { kind: 'batch', path: '/d/x', checkpoint: null, applied: 0, caughtUp: true, lag: { head: null, events: 0 } })
  t.equal(noHead.head, null, 'an empty log has no head')
  const stopped = nextStatus(noHead, { kind: 'stopped' })
  t.equal(stopped.state, 'stopped')
  t.equal(isUp(stopped), false)
})
