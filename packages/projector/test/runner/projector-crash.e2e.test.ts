import t from 'tap'
import { ReadModel, verifyOrders } from '../../src/index.js'
import { collect, exited, startChild } from '../children.js'
import { openStore, randomTraffic, tempDir } from '../helpers.js'

t.test('SIGKILL of the projector process mid-run, then restart: no duplicate, no gap', async (t) => {
  const dir = await tempDir()
  const store = await openStore(dir.path)
  const readModel = new ReadModel(dir.path)
  t.teardown(async () => {
    readModel.close()
    await store.close()
    await dir.remove()
  })
  await randomTraffic(store, { seed: 11, steps: 4000, orders: 400 })
  const head = (await store.headPosition())!
  const checkpointNow = (): bigint => {
    try {
      return readModel.checkpoint()?.commit ?? 0n
    } catch {
      return 0n // the child may not have created the tables yet
    }
  }

  let killedMidway = 0
  for (let round = 0; round < 4; round += 1) {
    const child = startChild(new URL('./projector-child.mjs', import.meta.url), [dir.path, '7'])
    const output = collect(child)
    const before = checkpointNow()
    // Wait until this run has committed something of its own, then kill it without warning.
    const deadline = Date.now() + 20_000
    while (checkpointNow() <= before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 2))
    child.kill('SIGKILL')
    const end = await exited(child)
    t.equal(end.signal, 'SIGKILL', `round ${round}: killed (${output.text().split('\n').length} status lines)`)
    if (checkpointNow() < head.commit) killedMidway += 1
  }
  t.ok(killedMidway > 0, `killed before the end ${killedMidway} time(s)`)

  const child = startChild(new URL('./projector-child.mjs', import.meta.url), [dir.path, '7'])
  const final = collect(child)
  const deadline = Date.now() + 30_000
  // The checkpoint may already be at the head (an earlier round finished before its kill): wait
  // for the child's first status line too, so the SIGTERM finds its handler installed.
  while ((checkpointNow() < head.commit || final.text() === '') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
  child.kill('SIGTERM')
  t.equal((await exited(child)).code, 0, 'stops cleanly on SIGTERM')
  t.equal(checkpointNow(), head.commit, 'the restarted projector reached the head')

  // event_count counts the events applied to each row: a duplicate would exceed revision + 1,
  // a gap would fall short; verify compares both with the domain's fold.
  const rows = [...readModel.allOrders()]
  t.ok(rows.length > 300, `${rows.length} orders`)
  t.same(rows.filter((row) => row.event_count !== row.revision + 1).map((row) => row.order_id), [], 'every row applied each event exactly once')
  const report = await verifyOrders({ store, keys: store.keys, readModel })
  t.same(report.mismatches, [])
  t.ok(report.ok)
})
