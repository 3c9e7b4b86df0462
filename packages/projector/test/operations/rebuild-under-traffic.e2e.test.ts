import { basename } from 'node:path'
import t from 'tap'
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
  const until = async (what: string, check: () => boolean): Promise<void> => {
    const end = Date.now() + 60_000
    while (!check()) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${projectorOutput.text().split('\n').at(-2) ?? ''}`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
  const headSize = (): number => heads.latest()?.tree_size ?? 0
  await until('the first heads', () => headSize() > 0)

  const logHead = async (): Promise<bigint> => (await store.headPosition())?.commit ?? 0n
  const paths = new Set<string>()
  for (let run = 1; run <= 3; run += 1) {
    const before = await logHead()
    const result = await rebuildReadModel({ store, dataDir: dir.path, batchSize: 50 })
    t.ok(result.events > 0, `orders rebuild ${run}: ${result.events} events in ${result.elapsedMs.toFixed(0)} ms`)
    paths.add(basename(readModel.path))
    t.equal(readModel.path, result.path, `orders rebuild ${run}: swapped in`)
    t.ok(await logHead() > before, `the log grew while orders rebuild ${run} ran`)
  }
  t.equal(paths.size, 3, 'three new generations')

  for (let run = 1; run <= 3; run += 1) {
    const signedBefore = headSize()
    const result = await rebuildAuditLog({ store, dataDir: dir.path, heads, batchSize: 50 })
    t.ok(result.headsChecked > 0 && result.leaves >= signedBefore, `audit rebuild ${run}: ${result.leaves} leaves agree with ${result.headsChecked} heads`)
    t.equal(auditLog.path, result.path, `audit rebuild ${run}: swapped in`)
    await until(`a head past audit rebuild ${run}`, () => headSize() > result.leaves)
  }

  writer.kill('SIGTERM')
  t.equal((await exited(writer)).code, 0, `the writer stopped: ${writerOutput.text().trim()}`)
  const head = await store.headPosition()
  await until('the live projector to catch up', () => readModel.checkpoint()?.commit === head?.commit && auditLog.checkpoint()?.commit === head?.commit)
  projector.kill('SIGTERM')
  t.equal((await exited(projector)).code, 0, 'the live projector stopped cleanly')

  const orders = await verifyOrders({ store, readModel })
  t.same(orders.mismatches, [])
  t.ok(orders.ok, `the read model matches the log (${orders.events} events)`)
  const kept = [...heads.all()]
  t.ok(kept.length > 10, `${kept.length} heads were signed while it all ran`)
  t.same(kept.filter((h) => toHex(auditLog.root(h.tree_size)) !== h.root_hash).map((h) => h.tree_size), [], 'the audit log agrees with every head')
  t.equal(auditLog.size(), kept.at(-1)?.tree_size, 'the last head covers the whole audit log')
})
