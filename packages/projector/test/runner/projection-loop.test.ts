import t from 'tap'
import { comparePositions, sleep, type Position, type ProjectionEvent } from '@waybill/event-store'
import type { EventSource } from '../../src/index.js'
import type { ProjectorLogger } from '../../src/runner/logger.js'
import { startProjectionLoop } from '../../src/runner/projection-loop.js'
import type { Projection } from '../../src/runner/projection.js'

// The loop against a projection and a source held in memory: a unit test of the loop alone
// (the real projections run it in runner/resume.test.ts and orders/fold-equality.test.ts).
const at = (n: number): Position => ({ commit: BigInt(n), prepare: BigInt(n) })
const event = (n: number): ProjectionEvent => ({ streamName: `order-acme-${n}`, id: `id-${n}`, type: 'OrderAdded', revision: 0, data: {}, metadata: {}, position: at(n) })

function memorySource(log: ProjectionEvent[]): EventSource {
  const after = (position: Position | null) => log.filter((e) => position === null || comparePositions(e.position, position) > 0)
  return {
    pull: async (position, maxCount) => {
      const events = after(position).slice(0, maxCount)
      return { events, through: events.at(-1)?.position ?? null, complete: events.length < maxCount }
    },
    headPosition: async () => log.at(-1)?.position ?? null,
    countAfter: async (position, limit) => Math.min(limit, after(position).length),
    waitForMore: (ms, signal) => sleep(ms, signal),
  }
}

/** A projection that keeps what it applied in an array, and fails while `failures` is above 0. */
function memoryProjection() {
  const calls: string[] = []
  const applied: number[] = []
  let checkpoint: Position | null = null
  const projection = {
    failures: 0,
    calls,
    applied,
    name: 'memory',
    open: () => {
      calls.push('open')
      return {
        path: '/memory',
        checkpoint: () => checkpoint,
        applyBatch: (events: readonly ProjectionEvent[], through: Position | null) => {
          if (projection.failures > 0) {
            projection.failures -= 1
            throw new Error('database or disk is full')
          }
          for (const e of events) applied.push(Number(e.position.commit))
          checkpoint = through ?? checkpoint
          return { applied: events.length }
        },
        close: () => calls.push('writer closed'),
      }
    },
    afterBatch: (outcome: { applied: number }, caughtUp: boolean) => { calls.push(`after ${outcome.applied} ${caughtUp ? 'caught up' : 'behind'}`) },
    beforeStop: () => { calls.push('before stop') },
    close: () => { calls.push('close') },
  } satisfies Projection & Record<string, unknown>
  return projection
}

function recording(): ProjectorLogger & { lines: string[] } {
  const lines: string[] = []
  return { lines, info: (_o, m) => lines.push(`info ${m ?? ''}`), warn: (_o, m) => lines.push(`warn ${m ?? ''}`), error: (_o, m) => lines.push(`error ${m ?? ''}`) }
}

async function until(check: () => boolean): Promise<void> {
  const end = Date.now() + 10_000
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out')
    await sleep(2)
  }
}

t.test('the loop pulls after the checkpoint, applies, counts the lag, waits when caught up and follows new events', async (t) => {
  const log = [1, 2, 3, 4, 5].map(event)
  const projection = memoryProjection()
  const abort = new AbortController()
  let changes = 0
  const loop = startProjectionLoop({
    projection, source: memorySource(log), batchSize: 2, pollMs: 5, retry: { initialMs: 5 }, log: recording(),
    signal: abort.signal, onChange: () => { changes += 1 },
  })
  t.equal(loop.status().state, 'starting')
  await until(() => loop.status().state === 'caught_up')
  t.same(projection.applied, [1, 2, 3, 4, 5], 'every event once, in order')
  t.same(projection.calls.slice(0, 4), ['open', 'after 2 behind', 'open', 'after 2 behind'], 'opened before every batch, told after it')
  t.same(loop.checkpoint(), at(5))
  t.match(loop.status(), { checkpoint: '5/5', head: '5/5', lag: 0, appliedEvents: 5, path: '/memory' })
  t.ok(changes >= 3, 'told of each batch')
  log.push(event(6), event(7))
  await until(() => loop.status().checkpoint === '7/7')
  t.same(projection.applied, [1, 2, 3, 4, 5, 6, 7])
  abort.abort()
  await loop.done
  t.same(projection.calls.slice(-2), ['before stop', 'close'], 'after a committed batch, told before it stops; then closed')
  t.equal(loop.status().state, 'stopped')
})

t.test('a failing batch closes the projection, is retried with backoff, logged once, and the loop resumes by itself', async (t) => {
  const projection = memoryProjection()
  projection.failures = 3
  const logger = recording()
  const abort = new AbortController()
  const loop = startProjectionLoop({
    projection, source: memorySource([1, 2, 3].map(event)), batchSize: 10, pollMs: 5, retry: { initialMs: 4, maxMs: 8 }, log: logger, signal: abort.signal,
  })
  await until(() => loop.status().state === 'caught_up')
  t.same(projection.applied, [1, 2, 3])
  t.same(projection.calls.filter((call) => call === 'close').length, 3, 'closed after each failure, so the next batch reopens the file')
  t.same(logger.lines, ['error projector: memory batch failed; retrying with backoff', 'info projector: memory resumed'], 'one error line for the outage, one when it ends')
  t.equal(loop.status().lastError, null)
  projection.failures = Infinity
  await until(() => loop.status().state === 'retrying')
  t.equal(loop.status().lastError, 'database or disk is full')
  abort.abort()
  await loop.done
  t.notOk(projection.calls.includes('before stop'), 'stopped while retrying: nothing is added on the way out')
  t.equal(loop.status().state, 'stopped')
})

t.test('a stop before the first batch stops at once', async (t) => {
  const projection = memoryProjection()
  const abort = new AbortController()
  abort.abort()
  const loop = startProjectionLoop({ projection, source: memorySource([]), batchSize: 10, pollMs: 5, retry: {}, log: recording(), signal: abort.signal })
  await loop.done
  t.same(projection.calls, ['before stop', 'close'])
  t.same(loop.checkpoint(), null)
})
