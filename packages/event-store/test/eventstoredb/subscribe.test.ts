import t from 'tap'
import type { Position, RecordedEvent } from '../../src/port.js'
import { appendNotifier } from '../../src/eventstoredb/append-notifier.js'
import { subscribeAllWithRetry } from '../../src/eventstoredb/subscribe-with-retry.js'
import type { LiveSource, LiveSubscriptionRequest } from '../../src/eventstoredb/subscribe-with-retry.js'

// The retry loop is what is under test here; its source is a scripted stand-in for the
// server's subscription (which cannot run on this machine), each attempt playing one script.
function event(n: number): RecordedEvent {
  return {
    streamName: `order-acme-${n}`, id: `id-${n}`, type: 'OrderAdded', data: {}, metadata: { prev_hash: null },
    revision: 0, position: { commit: BigInt(n), prepare: BigInt(n) }, hash: `h${n}`, createdAt: new Date(0),
  }
}

type Script = { events: number[]; then: 'throw' | 'end' | 'wait' }

function scriptedSource(scripts: Script[]): LiveSource & { requests: Array<{ after: Position | null | 'end'; categories?: readonly string[] }> } {
  const requests: Array<{ after: Position | null | 'end'; categories?: readonly string[] }> = []
  return {
    requests,
    async *subscribeAll(request: LiveSubscriptionRequest) {
      requests.push({ after: request.after, ...(request.categories ? { categories: request.categories } : {}) })
      const script = scripts.shift() ?? { events: [], then: 'wait' }
      for (const n of script.events) yield event(n)
      if (script.then === 'throw') throw new Error(`dropped after ${script.events.join(',')}`)
      if (script.then === 'wait' && !request.signal.aborted) {
        await new Promise<void>((resolve) => request.signal.addEventListener('abort', () => resolve(), { once: true }))
      }
    },
  }
}

t.test('re-subscribes after errors and ends, from the last handled position, backing off', async (t) => {
  const source = scriptedSource([
    { events: [1, 2], then: 'throw' },
    { events: [], then: 'throw' },
    { events: [3], then: 'end' },
    { events: [4], then: 'wait' },
  ])
  const controller = new AbortController()
  const handled: number[] = []
  const retries: Array<{ reason: string; delayMs: number }> = []
  const done = subscribeAllWithRetry(source, {
    after: { commit: 0n, prepare: 0n },
    categories: ['order', 'key'],
    signal: controller.signal,
    backoff: { initialMs: 5, maxMs: 1_000, random: () => 1 },
    onRetry: (reason, delayMs) => retries.push({ reason: (reason as Error).message, delayMs }),
    onEvent: (e) => {
      handled.push(Number(e.position.commit))
      if (e.position.commit === 4n) controller.abort()
    },
  })
  await done
  t.same(handled, [1, 2, 3, 4], 'every event once, in order')
  t.same(source.requests.map((r) => (r.after === 'end' ? 'end' : r.after?.commit)), [0n, 2n, 2n, 3n], 'each attempt starts after the last handled event')
  t.same(source.requests[0]?.categories, ['order', 'key'])
  t.same(retries, [
    { reason: 'dropped after 1,2', delayMs: 5 },
    { reason: 'dropped after ', delayMs: 10 },
    { reason: 'subscription ended', delayMs: 5 },
  ], 'waits double while nothing arrives and reset once an event is handled')
})

t.test('a failing handler re-subscribes from the event it failed on', async (t) => {
  const source = scriptedSource([{ events: [1, 2, 3], then: 'wait' }, { events: [2, 3], then: 'wait' }])
  const controller = new AbortController()
  const handled: number[] = []
  let failOnce = true
  await subscribeAllWithRetry(source, {
    signal: controller.signal,
    backoff: { initialMs: 1, random: () => 0 },
    onEvent: (e) => {
      const n = Number(e.position.commit)
      if (n === 2 && failOnce) { failOnce = false; throw new Error('read model busy') }
      handled.push(n)
      if (n === 3) controller.abort()
    },
  })
  t.same(handled, [1, 2, 3])
  t.same(source.requests.map((r) => (r.after === 'end' ? 'end' : r.after?.commit ?? null)), [null, 1n])
})

t.test('aborting while waiting to retry resolves promptly', async (t) => {
  const source = scriptedSource([{ events: [], then: 'throw' }])
  const controller = new AbortController()
  const started = Date.now()
  const done = subscribeAllWithRetry(source, {
    signal: controller.signal,
    backoff: { initialMs: 60_000, random: () => 1 },
    onEvent: () => undefined,
    onRetry: () => setImmediate(() => controller.abort()),
  })
  await done
  t.ok(Date.now() - started < 5_000, 'did not sit out the 60 s backoff')
  t.equal(source.requests.length, 1)
})

t.test('an already aborted signal never subscribes', async (t) => {
  const source = scriptedSource([])
  await subscribeAllWithRetry(source, { signal: AbortSignal.abort(), onEvent: () => undefined })
  t.equal(source.requests.length, 0)
})

t.test('a bad category is refused at once instead of failing every attempt', async (t) => {
  const source = scriptedSource([])
  await t.rejects(subscribeAllWithRetry(source, { categories: ['order-acme'], signal: new AbortController().signal, onEvent: () => undefined }), RangeError)
  t.equal(source.requests.length, 0)
})

t.test('the append notifier wakes every listener per event, from the end, and stops with the last listener', async (t) => {
  const signals: AbortSignal[] = []
  const source: LiveSource & { requests: Array<LiveSubscriptionRequest['after']> } = {
    requests: [],
    async *subscribeAll(request) {
      this.requests.push(request.after)
      signals.push(request.signal)
      yield event(7)
      yield event(8)
      if (!request.signal.aborted) await new Promise<void>((resolve) => request.signal.addEventListener('abort', () => resolve(), { once: true }))
    },
  }
  const notifier = appendNotifier(source)
  let a = 0
  let b = 0
  const stopA = notifier.onAppended(() => { a += 1 })
  const stopB = notifier.onAppended(() => { b += 1 })
  await new Promise((resolve) => setTimeout(resolve, 20))
  t.same(source.requests, ['end'], 'one subscription, from the end of the log')
  t.equal(a, 2)
  t.equal(b, 2)
  stopA()
  t.equal(signals[0]!.aborted, false, 'still one listener')
  stopB()
  t.equal(signals[0]!.aborted, true, 'the last listener gone, the subscription ends')
})
