import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import Sqlite from 'better-sqlite3'
import t from 'tap'
import { SealBrokenError } from '@waybill/personal-data'
import { rebuildReadModel } from '../../src/index.js'
import { queryFile, randomTraffic, storeForTest } from '../helpers.js'

/** Every row of a read model file, in key order. */
const rowsOf = (path: string): unknown[] => queryFile(path, 'SELECT * FROM orders ORDER BY account, order_id')

t.test('a rebuild that opens ahead on a thread writes the rows a rebuild opening each event as it folds writes', async (t) => {
  const { dir, store } = await storeForTest(t)
  await randomTraffic(store, { seed: 29, steps: 400, orders: 40 })
  // Batches of 7: an order's events fall in different batches, and several batches are read ahead.
  const ahead = await rebuildReadModel({ store, keys: store.keys, dataDir: dir.path, batchSize: 7, swap: false })
  const inline = await rebuildReadModel({ store, keys: store.keys, dataDir: dir.path, batchSize: 7, swap: false, openingThread: false })
  t.equal(ahead.events, inline.events)
  t.same(ahead.checkpoint, inline.checkpoint)
  const rows = rowsOf(ahead.path)
  t.ok(rows.length > 30, `${rows.length} orders`)
  t.match(rows, [{ customer: /^./, address: /^./ }], 'personal fields opened')
  t.same(rows, rowsOf(inline.path))
})

t.test('a changed sealed part fails the rebuild with the same error either way, and leaves no file', async (t) => {
  const { dir, store } = await storeForTest(t)
  await randomTraffic(store, { seed: 30, steps: 60, orders: 10 })
  const db = new Sqlite(join(dir.path, 'events.sqlite'))
  const { position, box } = db.prepare("SELECT position, data ->> '$.personal.box' AS box FROM events WHERE category = 'order' ORDER BY position DESC LIMIT 1")
    .get() as { position: number; box: string }
  const changed = `${box.slice(0, 5)}${box[5] === 'A' ? 'B' : 'A'}${box.slice(6)}`
  db.prepare("UPDATE events SET data = json_set(data, '$.personal.box', ?) WHERE position = ?").run(changed, position)
  db.close()
  const files = readdirSync(dir.path)
  for (const openingThread of [true, false]) {
    await t.rejects(rebuildReadModel({ store, keys: store.keys, dataDir: dir.path, openingThread }), SealBrokenError, `opening thread: ${openingThread}`)
    t.same(readdirSync(dir.path), files, 'the new file was deleted')
  }
})
