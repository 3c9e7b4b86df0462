import { WrongExpectedVersionError } from '../errors.js'
import type { PreflightCheck } from './check.js'
import { expect, expectConflict, same } from './check.js'

const RACERS = 50

/** Every expected-revision case: accepted where it holds, refused with the actual revision where not. */
export const expectedRevisionCases: PreflightCheck = {
  name: 'expected revision: no_stream, stream_exists, any, exact',
  async run(context) {
    const { store } = context
    const existing = context.stream()
    await store.appendToStream(existing, [context.event(), context.event()], { expectedRevision: 'no_stream' })
    expect((await store.appendToStream(context.stream(), [context.event()], { expectedRevision: 'no_stream' })).nextExpectedRevision === 0, 'no_stream on a new stream starts it at revision 0')
    await expectConflict(context, existing, 'no_stream', 1)
    await expectConflict(context, context.stream(), 'stream_exists', 'no_stream')
    expect((await store.appendToStream(existing, [context.event()], { expectedRevision: 'stream_exists' })).nextExpectedRevision === 2, 'stream_exists on an existing stream is accepted')
    const any = context.stream()
    expect((await store.appendToStream(any, [context.event()], { expectedRevision: 'any' })).nextExpectedRevision === 0, 'any on a new stream is accepted')
    expect((await store.appendToStream(any, [context.event()])).nextExpectedRevision === 1, 'any is the default, and accepted on an existing stream')
    await expectConflict(context, existing, 0, 2)
    await expectConflict(context, existing, 7, 2)
    await expectConflict(context, context.stream(), 0, 'no_stream')
    expect((await store.appendToStream(existing, [context.event()], { expectedRevision: 2 })).nextExpectedRevision === 3, 'the right exact revision is accepted')
    expect((await store.readStream(existing)).length === 4, 'refused appends wrote nothing')
  },
}

/** Many writers creating the same stream at once: exactly one wins, every other sees it. */
export const createRace: PreflightCheck = {
  name: `${RACERS} racing creates (no_stream): exactly one wins`,
  async run(context) {
    const stream = context.stream()
    const racers = Array.from({ length: RACERS }, () => context.event())
    const results = await Promise.allSettled(racers.map((racer) => context.store.appendToStream(stream, [racer], { expectedRevision: 'no_stream' })))
    const winners = racers.filter((_, i) => results[i]?.status === 'fulfilled').map((racer) => racer.id)
    const losers = results.filter((result) => result.status === 'rejected')
    expect(winners.length === 1, `${winners.length} appends won`)
    expect(losers.every((loser) => loser.reason instanceof WrongExpectedVersionError && loser.reason.actual === 0),
      'every loser is refused with WrongExpectedVersionError naming revision 0')
    expect(same((await context.store.readStream(stream)).map((e) => e.id), winners), 'the stream holds the winner only')
  },
}

/** A retry of an append that landed answers as the first did and writes nothing, whatever it expects. */
export const idempotentReappend: PreflightCheck = {
  name: 'idempotent re-append (sequential), and no id twice in a stream',
  async run(context) {
    const { store } = context
    const stream = context.stream()
    const [a, b] = [context.event('A'), context.event('B')]
    const pair = [a, b]
    const first = await store.appendToStream(stream, pair, { expectedRevision: 'no_stream' })
    expect(same(await store.appendToStream(stream, pair, { expectedRevision: 'no_stream' }), first), 'a retry with no_stream answers as the first append did')
    expect(same(await store.appendToStream(stream, pair, { expectedRevision: 'any' }), first), 'a retry with any answers as the first append did')
    const third = context.event('C')
    const appended = await store.appendToStream(stream, [third], { expectedRevision: 1 })
    expect(same(await store.appendToStream(stream, [third], { expectedRevision: 1 }), appended), 'a retry with an exact revision answers as the first append did')
    // An id stored earlier, sent again where the stream now ends: the server alone would write it twice.
    await expectConflict(context, stream, 2, 2, [a])
    await expectConflict(context, stream, 0, 2, [third])
    // Far back, past any window a store might keep for retries.
    for (let i = 0; i < 70; i += 1) await store.appendToStream(stream, [context.event()], { expectedRevision: 2 + i })
    expect(same(await store.appendToStream(stream, pair, { expectedRevision: 'any' }), first), 'a retry 70 events later, with any, still answers as the first append did')
    await expectConflict(context, stream, 72, 72, [b])
    const read = await store.readStream(stream)
    expect(read.length === 73 && new Set(read.map((e) => e.id)).size === 73, 'nothing was written twice')
    expect(read[0]?.id === a.id, 'ids read back exactly as appended')
  },
}

/** Identical appends racing each other all get the original answer, as a courier's retries do. */
export const racingReappend: PreflightCheck = {
  name: 'idempotent re-append (racing): every identical append succeeds',
  async run(context) {
    const stream = context.stream()
    await context.store.appendToStream(stream, [context.event()], { expectedRevision: 'no_stream' })
    const same5 = context.event('Raced')
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => context.store.appendToStream(stream, [same5], { expectedRevision: 0 })))
    const failed = results.filter((result) => result.status === 'rejected')
    expect(failed.length === 0, `${failed.length} of 5 identical appends failed (${failed.map((f) => String(f.reason)).join('; ')})`)
    const answers = results.map((result) => (result.status === 'fulfilled' ? result.value : null))
    expect(answers.every((answer) => same(answer, answers[0])), 'every identical append got the same answer')
    expect((await context.store.readStream(stream)).length === 2, 'the event was written once')
  },
}
