import { basename } from 'node:path'
import t from 'tap'
import { ReadModel, startProjector, verifyOrders } from '../../src/index.js'
import { collect, exited, startChild } from '../children.js'
import { openStore, randomTraffic, tempDir } from '../helpers.js'

t.test('a rebuild in another process swaps the model while queries and the projector run, without a failed or empty answer', async (t) => {
  const dir = await tempDir()
  const store = await openStore(dir.path)
  const readModel = new ReadModel(dir.path)
  t.teardown(async () => {
    readModel.close()
    await store.close()
    await dir.remove()
  })
  await randomTraffic(store, { seed: 21, steps: 3000, orders: 300 })
  const projector = startProjector({ store, keys: store.keys, dataDir: dir.path, pollMs: 10 })
  t.teardown(() => projector.stop())
  await projector.waitFor((await store.headPosition())!)
  const firstPath = readModel.path
  t.equal(basename(firstPath), 'read-model.sqlite')

  const rebuild = startChild(new URL('./rebuild-child.mjs', import.meta.url), [dir.path, '50'])
  const output = collect(rebuild)
  // An object, not a `let`: TypeScript does not see a callback's assignment to a local and
  // would take the loop's test below for always the same.
  const child = { finished: false }
  const ended = exited(rebuild).then((end) => {
    child.finished = true
    return end
  })
  // Traffic keeps coming during the rebuild; the live projector must follow the swap.
  const traffic = randomTraffic(store, { seed: 22, steps: 300, orders: 300 })

  let queries = 0
  let failures = 0
  let empties = 0
  const paths = new Set<string>()
  let afterSwap = 0
  while (!child.finished || afterSwap < 200) {
    try {
      const page = readModel.listOrders('acme', { limit: 20 })
      const one = readModel.getOrder('acme', page[0]?.order_id ?? 'none')
      if (page.length === 0 || one === null) empties += 1
      paths.add(readModel.path)
    } catch (error) {
      failures += 1
      t.comment(`query failed: ${(error as Error).message}`)
    }
    queries += 1
    if (child.finished) afterSwap += 1
    await new Promise((resolve) => setImmediate(resolve))
  }
  const end = await ended
  t.equal(end.code, 0, `rebuild exited 0: ${output.text().trim()}`)
  t.ok(queries > 200, `${queries} queries ran`)
  t.equal(failures, 0, 'no query failed')
  t.equal(empties, 0, 'no query saw an empty model')
  t.equal(paths.size, 2, 'queries were answered by the old file, then the new one')
  t.not(readModel.path, firstPath)

  await traffic
  await projector.waitFor((await store.headPosition())!)
  t.equal(projector.status().orders.path, readModel.path, 'the live projector moved to the new file')
  const report = await verifyOrders({ store, keys: store.keys, readModel })
  t.same(report.mismatches, [])
  t.ok(report.ok, 'the rebuilt model, kept current by the projector, equals a fresh fold')
})
