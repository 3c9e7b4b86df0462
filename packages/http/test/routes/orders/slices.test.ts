import t from 'tap'
import { openMemoryEventStore, verifyStreamChain, type RecordedEvent } from '@waybill/event-store'
import { ChainCheck } from '../../../src/routes/orders/chain-check.js'
import { readEventPage } from '../../../src/routes/orders/event-page.js'
import { streamSlices } from '../../../src/routes/orders/stream-slices.js'

/** A stream of `count` events, read back whole. */
async function storedStream(count: number): Promise<RecordedEvent[]> {
  const store = openMemoryEventStore()
  const events = Array.from({ length: count }, (_, i) => ({ id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, type: 'OrderUpdated', data: { n: i } }))
  await store.appendToStream('order-acme-A', events)
  return store.readStream('order-acme-A')
}

/** The stream as `streamSlices` would give it: runs of `size` events. */
async function* slicesOf(events: readonly RecordedEvent[], size: number): AsyncGenerator<readonly RecordedEvent[]> {
  for (let from = 0; from < events.length; from += size) yield events.slice(from, from + size)
}

t.test('streamSlices reads a stream whole, in order, a slice at a time, from a revision', async (t) => {
  const store = openMemoryEventStore()
  const events = Array.from({ length: 60 }, (_, i) => ({ id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, type: 'OrderUpdated', data: { n: i } }))
  await store.appendToStream('order-acme-A', events)
  const reads: number[] = []
  const counting = { readStream: async (...args: Parameters<typeof store.readStream>) => { reads.push(args[1]?.maxCount ?? -1); return store.readStream(...args) } }
  const seen: RecordedEvent[][] = []
  for await (const slice of streamSlices(counting, 'order-acme-A')) seen.push([...slice])
  t.same(seen.map((slice) => slice.length), [25, 25, 10], 'slices of at most 25')
  t.same(seen.flat().map((event) => event.revision), Array.from({ length: 60 }, (_, i) => i), 'every event once, in order')
  t.same(reads, [25, 25, 25], 'each read asks for one slice')
  const from = []
  for await (const slice of streamSlices(store, 'order-acme-A', 40)) from.push(...slice.map((event) => event.revision))
  t.same(from, Array.from({ length: 20 }, (_, i) => 40 + i), 'from a revision')
  const exact = []
  for await (const slice of streamSlices(store, 'order-acme-A', 10)) exact.push(slice.length)
  t.same(exact, [25, 25], 'a last slice that is full is followed by one empty read, and no empty slice')
  for await (const slice of streamSlices(store, 'order-none')) t.fail(`a stream with no events has no slices: ${slice.length}`)
})

t.test('readEventPage: the page the whole stream would give, whatever the slices', async (t) => {
  const events = await storedStream(60)
  // The page as read from the whole stream: the first event after `after`, then up to `limit`.
  const expected = (after: number | undefined, limit: number) => {
    const found = after === undefined ? 0 : events.findIndex((event) => event.revision > after)
    const start = found === -1 ? events.length : found
    const page = events.slice(start, start + limit)
    const last = page.at(-1)
    const read = Math.min(events.length, start + limit)
    return { page: page.map((event) => event.revision), next: last !== undefined && start + page.length < events.length ? String(last.revision) : null, read }
  }
  for (const size of [1, 7, 25, 60, 100]) {
    for (const after of [undefined, 0, 6, 24, 25, 58, 59, 80]) {
      for (const limit of [1, 10, 25, 35, 60]) {
        const page: number[] = []
        let read = 0
        let tails = true
        const next = await readEventPage(slicesOf(events, size), after, limit, (slice, onPage) => {
          tails &&= slice.slice(slice.length - onPage.length).every((event, i) => event === onPage[i])
          read += slice.length
          page.push(...onPage.map((event) => event.revision))
        })
        // Every event up to one past the page is visited, and none after it.
        t.same({ page, next, read, tails }, { ...expected(after, limit), tails: true }, `slices of ${size}, after ${String(after)}, limit ${limit}`)
      }
    }
  }
})

t.test('ChainCheck gives verifyStreamChain\'s verdict, fed in slices', async (t) => {
  const events = await storedStream(40)
  const tampered = events.map((event) => event.revision === 17 ? { ...event, data: { n: 'forged' } } : event)
  const relinked = events.map((event) => event.revision === 30 ? { ...event, metadata: { ...event.metadata, prev_hash: 'x' } } : event)
  const gap = events.filter((event) => event.revision !== 22)
  for (const [name, stream] of [['intact', events], ['tampered', tampered], ['relinked', relinked], ['with a gap', gap]] as const) {
    for (const size of [1, 5, 25, 40]) {
      for (const from of [0, 10, 18, 31]) {
        const check = new ChainCheck()
        for await (const slice of slicesOf(stream, size)) {
          const before = slice.filter((_, i) => stream.indexOf(slice[0]!) + i < from)
          check.skip(before)
          check.add(slice.slice(before.length))
        }
        t.same(check.verdict, verifyStreamChain(stream.slice(from), stream[from - 1] ?? null), `${name}, slices of ${size}, from ${from}`)
      }
    }
  }
})
