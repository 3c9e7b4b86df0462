import t from 'tap'
import { openMemoryEventStore } from '@waybill/event-store'
import { storeEventSource } from '../../src/index.js'

t.test('waitForMore: an append notice wakes it, an abort ends it, and a signal aborted already returns at once', async (t) => {
  const store = openMemoryEventStore()
  const source = storeEventSource(store, { coalesceMs: 0 })
  t.teardown(() => source.close?.())
  const timed = async (wait: Promise<void>): Promise<number> => {
    const started = Date.now()
    await wait
    return Date.now() - started
  }
  const woken = source.waitForMore(10_000, new AbortController().signal)
  await store.appendToStream('order-acme-1', [{ id: '00000000-0000-4000-8000-000000000001', type: 'OrderAdded', data: {}, metadata: {} }])
  t.ok(await timed(woken) < 5_000, 'an append wakes it')
  const controller = new AbortController()
  const aborted = source.waitForMore(10_000, controller.signal)
  controller.abort()
  t.ok(await timed(aborted) < 5_000, 'an abort ends it')
  t.ok(await timed(source.waitForMore(10_000, AbortSignal.abort())) < 5_000, 'so does a signal aborted before the call')
  // An append while no one waits (the projector applying a batch): the next wait ends at once.
  await store.appendToStream('order-acme-2', [{ id: '00000000-0000-4000-8000-000000000002', type: 'OrderAdded', data: {}, metadata: {} }])
  t.ok(await timed(source.waitForMore(10_000, new AbortController().signal)) < 5_000, 'a notice between waits is not lost')
})

t.test('notices can come from elsewhere than the store (the main thread, for serve\'s projector thread)', async (t) => {
  const store = openMemoryEventStore()
  let notify: (() => void) | null = null
  const source = storeEventSource(store, { coalesceMs: 0, onAppended: (listener) => { notify = listener; return () => { notify = null } } })
  const wait = source.waitForMore(10_000, new AbortController().signal)
  const started = Date.now()
  notify!()
  await wait
  t.ok(Date.now() - started < 5_000, 'woken by the notice')
  source.close?.()
  t.equal(notify, null, 'close lets go of the subscription')
})
