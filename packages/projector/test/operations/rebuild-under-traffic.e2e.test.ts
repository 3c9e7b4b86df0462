import { basename } from 'node:path'
import t from 'tap'
import { comparePositions, type Position } from '@waybill/event-store'
import { toHex } from '@waybill/merkle'
import { AuditLog, HeadStore, ReadModel, rebuildAuditLog, rebuildReadModel, verifyOrders } from '../../src/index.js'
import { collect, exited, startChild } from '../children.js'
import { openStore, randomTraffic, tempDir } from '../helpers.js'

// What an operator does: `waybill rebuild` and `waybill audit rebuild`, a few times in a row,
// while couriers write (a writer in its own process) and the live projector (its own process
// too) applies their events and signs a head every 5 leaves. Every rebuild must succeed: the
// live projector moving on is no reason to refuse.
t.test('rebuilds under write traffic: each one succeeds, and afterwards the read model and the audit log verify', async (t) => {
  const dir = await tempDir()
  t.teardown(() => dir.remove())
  const store = await openStore(dir.path)
  t.teardown(() => store.close())
  await randomTraffic(store, { seed: 41, steps: 1500, orders: 300 })
  const seeded = (await store.headPosition())?.commit ?? 0n

  const projector = startChild(new URL('../runner/projector-child.mjs', import.meta.url), [dir.path, '50', '5'])
  const projectorOutput = collect(projector)
  t.teardown(() => { projector.kill('SIGKILL') })
  const writer = startChild(new URL('./writer-child.mjs', import.meta.url), [dir.path, 'w'])
  const writerOutput = collect(writer)
  t.teardown(() => { writer.kill('SIGKILL') })
  const heads = HeadStore.inDataDir(dir.path)
  t.teardown(() => heads.close())
  const readModel = new ReadModel(dir.path)
  t.teardown(() => readModel.close())
  const auditLog = new AuditLog(dir.path)
  t.teardown(() => auditLog.close())
  const until = async (what: string, check: () => boolean | Promise<boolean>): Promise<void> => {
    const end = Date.now() + 60_000
    while (!await check()) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${projectorOutput.text().split('\n').at(-2) ?? ''}`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
  const headSize = (): number => heads.latest()?.tree_size ?? 0
  const logHead = async (): Promise<bigint> => (await store.headPosition())?.commit ?? 0n
  // Both children at work before the first rebuild: a start takes seconds on a loaded machine.
  await until('the first heads and the writer\'s first events', async () => headSize() > 0 && await logHead() > seeded)

  const paths = new Set<string>()
  let grew = 0
  for (let run = 1; run <= 3; run += 1) {
    const before = await logHead()
    const result = await rebuildReadModel({ store, keys: store.keys, dataDir: dir.path, batchSize: 50 })
    t.ok(result.events > 0, `orders rebuild ${run}: ${result.events} events in ${result.elapsedMs.toFixed(0)} ms`)
    paths.add(basename(readModel.path))
    t.equal(readModel.path, result.path, `orders rebuild ${run}: swapped in`)
    if (await logHead() > before) grew += 1
  }
  t.equal(paths.size, 3, 'three new generations')
  t.ok(grew > 0, `the log grew while ${grew} of the 3 orders rebuilds ran`)

  for (let run = 1; run <= 3; run += 1) {
    const signedBefore = headSize()
    const result = await rebuildAuditLog({ store, dataDir: dir.path, heads, batchSize: 50 })
    t.ok(result.headsChecked > 0 && result.leaves >= signedBefore, `audit rebuild ${run}: ${result.leaves} leaves agree with ${result.headsChecked} heads`)
    t.equal(auditLog.path, result.path, `audit rebuild ${run}: swapped in`)
    await until(`a head past audit rebuild ${run}`, () => headSize() > result.leaves)
  }

  writer.kill('SIGTERM')
  t.equal((await exited(writer)).code, 0, `the writer stopped: ${writerOutput.text().trim()}`)
  const head = (await store.headPosition())!
  const atHead = (checkpoint: Position | null): boolean => checkpoint !== null && comparePositions(checkpoint, head) === 0
  await until('the live projector to catch up', () => atHead(readModel.checkpoint()) && atHead(auditLog.checkpoint()))
  projector.kill('SIGTERM')
  t.equal((await exited(projector)).code, 0, 'the live projector stopped cleanly')

  const orders = await verifyOrders({ store, keys: store.keys, readModel })
  t.same(orders.mismatches, [])
  t.ok(orders.ok, `the read model matches the log (${orders.events} events)`)
  const kept = [...heads.all()]
  t.ok(kept.length > 10, `${kept.length} heads were signed while it all ran`)
  t.same(kept.filter((h) => toHex(auditLog.root(h.tree_size)) !== h.root_hash).map((h) => h.tree_size), [], 'the audit log agrees with every head')
  t.equal(auditLog.size(), kept.at(-1)?.tree_size, 'the last head covers the whole audit log')
})
