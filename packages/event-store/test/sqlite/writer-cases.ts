import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import type { Test } from 'tap'
import {
  type EventData, openSqliteEventStore, StoreUnavailableError, summarizeBatchSizes, verifyStreamChain,
  WrongExpectedVersionError,
} from '../../src/index.js'
import { freshStore, tempDir } from '../store-fixture.js'

const event = (data: Record<string, unknown> = {}): EventData => ({ id: randomUUID(), type: 'Happened', data })

/** The SQLite cases that depend on where the write connection lives; run once per writer. */
export function writerCases(t: Test, writer: 'inline' | 'worker'): void {
  t.test(`group commit (${writer} writer): concurrent appends share transactions; a conflict fails only itself`, async (t) => {
    const store = await freshStore(t, { writer })
    await store.appendToStream('order-x-taken', [event()], { expectedRevision: 'no_stream' })
    const before = store.stats()
    const appends = Array.from({ length: 200 }, (_, i) =>
      store.appendToStream(`order-x-${i}`, [event({ i })], { expectedRevision: 'no_stream' }))
    const conflicting = store.appendToStream('order-x-taken', [event()], { expectedRevision: 'no_stream' })
    const results = await Promise.allSettled([...appends, conflicting])
    const after = store.stats()
    t.equal(after.appends - before.appends, 201, 'every append went through the writer')
    t.ok(after.batches - before.batches < 50, `201 appends took ${after.batches - before.batches} transactions`)
    t.ok(results.slice(0, 200).every((r) => r.status === 'fulfilled'), 'the others all committed')
    const failed = results[200]!
    t.ok(failed.status === 'rejected' && failed.reason instanceof WrongExpectedVersionError, 'the conflict failed')
    const head = await store.headPosition()
    t.equal(head?.commit, 201n, 'positions are gap-free: 201 events, head at 201')
    const all = await store.readAll({ maxCount: 1000 })
    t.same(all.map((e) => Number(e.position.commit)), Array.from({ length: 201 }, (_, i) => i + 1))
    t.ok(summarizeBatchSizes(after).max > 1)
  })

  t.test('close waits for appends in flight; later calls fail as unavailable', async (t) => {
    const path = join(await tempDir(t), 'events.db')
    const store = await openSqliteEventStore({ path, writer })
    const pending = Array.from({ length: 50 }, (_, i) => store.appendToStream(`s-${i}`, [event()]))
    await store.close()
    const settled = await Promise.allSettled(pending)
    t.ok(settled.every((r) => r.status === 'fulfilled'), `${writer}: every append made before close committed`)
    await t.rejects(store.appendToStream('s', [event()]), StoreUnavailableError)
    await t.rejects(store.readStream('s'), StoreUnavailableError)
    await store.close()
    const again = await openSqliteEventStore({ path, writer })
    t.equal((await again.headPosition())?.commit, 50n)
    await again.close()
  })

  t.test('a full disk fails appends as unavailable, keeps what was committed, and recovers', async (t) => {
    const store = await freshStore(t, { writer })
    await store.appendToStream('order-full-1', [event({ n: 0 })], { expectedRevision: 'no_stream' })
    const pages = await store.setMaxPageCount(1)
    t.ok(pages > 0, `${writer}: the cap is the current size, ${pages} pages`)
    const big = 'x'.repeat(16 * 1024)
    let revision = 0
    let failure: unknown = null
    for (let i = 0; i < 100 && failure === null; i += 1) {
      await store.appendToStream('order-full-1', [event({ big })], { expectedRevision: revision }).then(
        () => { revision += 1 }, (error: unknown) => { failure = error })
    }
    t.ok(failure instanceof StoreUnavailableError, `${writer}: the append failed as unavailable`)
    t.match((failure as Error).message, /SQLITE_FULL/)
    const kept = await store.readStream('order-full-1')
    t.equal(kept.length, revision + 1, 'everything acknowledged is there, nothing else')

    await store.setMaxPageCount(1_000_000)
    const next = await store.appendToStream('order-full-1', [event({ big })], { expectedRevision: revision })
    t.equal(next.nextExpectedRevision, revision + 1, 'once space returns, appends work again')
    t.same(verifyStreamChain(await store.readStream('order-full-1')), { ok: true })
  })
}
