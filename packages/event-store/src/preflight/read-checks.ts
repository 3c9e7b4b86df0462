import { randomUUID } from 'node:crypto'
import { verifyStreamChain } from '../hash-chain.js'
import { comparePositions } from '../position.js'
import type { Position, RecordedEvent } from '../port.js'
import type { PreflightCheck } from './check.js'
import { expect, same } from './check.js'

/** What was appended can be read back at once, in order, with the hash chain intact. */
export const readAfterWrite: PreflightCheck = {
  name: 'read-after-write (from the leader), in order, hash chain intact',
  async run(context) {
    const { store } = context
    const stream = context.stream()
    const events = [context.event('A', { n: 1 }), context.event('B', { n: 2, nested: { list: [1, 'two', null] } }), context.event('C')]
    const first = await store.appendToStream(stream, events.slice(0, 1), { expectedRevision: 'no_stream' })
    const rest = await store.appendToStream(stream, events.slice(1), { expectedRevision: 0 })
    const read = await store.readStream(stream)
    expect(same(read.map((e) => [e.revision, e.id, e.type, e.data]), events.map((e, i) => [i, e.id, e.type, e.data])), 'the stream reads back as written, revisions from 0')
    expect(same(read.at(-1)?.position, rest.position) && same(read[0]?.position, first.position), 'append results name the positions the events read back with')
    expect(increasing(read.map((e) => e.position)), 'positions increase within the stream')
    expect(same(verifyStreamChain(read), { ok: true }), 'the hash chain verifies')
    expect(same(await store.readStream(stream, { fromRevision: 1, maxCount: 1 }).then((r) => r.map((e) => e.revision)), [1]), 'fromRevision and maxCount bound a read')
    expect((await store.readStream(context.stream())).length === 0, 'a stream that does not exist reads empty')
  },
}

/** The global log reads strictly after a position, in increasing positions, by category, in batches. */
export const readAllOrdering: PreflightCheck = {
  name: 'read-all: order, positions, categories, batches',
  async run(context) {
    const { store } = context
    const before = await store.headPosition()
    const [one, two] = [context.stream(), context.stream()]
    const streams = [one, two]
    const written = [context.event(), context.event(), context.event()] as const
    await store.appendToStream(one, [written[0]], { expectedRevision: 'no_stream' })
    await store.appendToStream(`other${context.category}-${randomUUID()}`, [context.event()], { expectedRevision: 'no_stream' })
    await store.appendToStream(two, [written[1]], { expectedRevision: 'no_stream' })
    const last = await store.appendToStream(one, [written[2]], { expectedRevision: 0 })
    const head = await store.headPosition()
    expect(head !== null && same(head, last.position), 'the head is the position of the last append')
    const mine = (await store.readAll({ after: before, categories: [context.category] })).filter((e) => streams.includes(e.streamName))
    expect(same(mine.map((e) => e.id), written.map((e) => e.id)), 'only the category asked for, in log order')
    const firstPosition = mine[0]?.position ?? null
    expect(firstPosition !== null, 'the first event reads back')
    const afterFirst = (await store.readAll({ after: firstPosition, categories: [context.category] })).filter((e) => streams.includes(e.streamName))
    expect(same(afterFirst.map((e) => e.id), written.slice(1).map((e) => e.id)), '`after` is exclusive')
    expect((await store.readAll({ after: before, maxCount: 1 })).length === 1, 'maxCount bounds a batch')
    expect((await store.readAll({ after: head, categories: [context.category] })).length === 0, 'nothing after the head')
    const unfiltered = await store.readAll({ after: firstPosition, maxCount: 10 })
    expect(increasing([firstPosition, ...unfiltered.map((e) => e.position)]), 'the whole log reads in increasing positions')
    expect(unfiltered.some((e) => !e.streamName.startsWith(`${context.category}-`)), 'without categories, every stream is read')
  },
}

/** A reader that catches up in small batches and resumes from its last position sees every event once; a listener hears new ones. */
export const catchUpAndResume: PreflightCheck = {
  name: 'subscription: catch-up in batches, resume from a checkpoint, live notification',
  async run(context) {
    const { store } = context
    const before = await store.headPosition()
    const stream = context.stream()
    const written = Array.from({ length: 7 }, () => context.event())
    for (const [i, event] of written.entries()) await store.appendToStream(stream, [event], { expectedRevision: i === 0 ? 'no_stream' : i - 1 })
    const seen: RecordedEvent[] = []
    let checkpoint: Position | null = before
    for (let round = 0; round < 20; round += 1) {
      const batch = await store.readAll({ after: checkpoint, maxCount: 2, categories: [context.category] })
      if (batch.length === 0) break
      seen.push(...batch.filter((e) => e.streamName === stream))
      checkpoint = batch.at(-1)?.position ?? checkpoint
    }
    expect(same(seen.map((e) => e.id), written.map((e) => e.id)), 'every event once, in order, across resumed batches')
    if (store.onAppended !== undefined) {
      let heard = false
      const heardOne = new Promise<void>((resolve) => {
        const stop = store.onAppended?.(() => { heard = true; stop?.(); resolve() })
      })
      await store.appendToStream(stream, [context.event()], { expectedRevision: written.length - 1 })
      // The timer goes with the answer: a pending one would keep `waybill store check` alive 5 s
      // after its last check.
      let timer: NodeJS.Timeout | undefined
      await Promise.race([heardOne, new Promise((resolve) => { timer = setTimeout(resolve, 5_000) })])
      clearTimeout(timer)
      expect(heard, 'onAppended: a listener hears a new append within 5 s')
    }
  },
}

/** An order event that carries image references (what `ORDER_COMPLETE` stores) round-trips exactly. */
export const imageBearingEvent: PreflightCheck = {
  name: 'append of an image-bearing event',
  async run(context) {
    const image = (sha: string, bytes: number): Record<string, unknown> => ({ sha256: sha.repeat(64).slice(0, 64), media_type: 'image/png', bytes })
    const data = {
      order_id: 'storecheck', address: 'Main Street 1', delivery_date: '2025-01-02T03:04:05Z', recipient: 'Ada',
      pod: image('a1', 5 * 1024 * 1024), signature: image('b2', 1234), event_date: '2025-01-02T03:04:05Z', note: 'ü✓ '.repeat(2000),
    }
    const stream = context.stream()
    const event = { ...context.event('OrderCompleted', data), metadata: { received_at: new Date(0).toISOString(), schema_version: 1 } }
    await context.store.appendToStream(stream, [event], { expectedRevision: 'no_stream' })
    const [read] = await context.store.readStream(stream)
    expect(read !== undefined && same(read.data, data), 'the data reads back exactly, image references included')
    expect(same(read.metadata, { ...event.metadata, prev_hash: null }), 'the metadata reads back with prev_hash')
  },
}

function increasing(positions: readonly Position[]): boolean {
  return positions.every((position, i) => {
    const previous = positions[i - 1]
    return previous === undefined || comparePositions(position, previous) > 0
  })
}
