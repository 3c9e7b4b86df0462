import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import Sqlite from 'better-sqlite3'
import t from 'tap'
import { ReadModel, ReadModelWriter, startProjector, verifyOrders, type OrderRow } from '../../src/index.js'
import { READ_MODEL_SCHEMA_VERSION } from '../../src/orders/sql-schema.js'
import { timestampKey } from '../../src/orders/timestamp-key.js'
import { command, noOpener, openStore, randomTraffic, send, tempDir } from '../helpers.js'

// The layout of read-model version 1, verbatim: what an operator upgrading still has on disk.
const VERSION_1 = `
CREATE TABLE orders (
  account TEXT NOT NULL, order_id TEXT NOT NULL, customer TEXT NOT NULL, location TEXT NOT NULL, status TEXT NOT NULL,
  address TEXT, delivery_date TEXT, recipient TEXT, reason TEXT,
  pod_sha256 TEXT, pod_media_type TEXT, pod_bytes INTEGER,
  signature_sha256 TEXT, signature_media_type TEXT, signature_bytes INTEGER,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL, updated_at_ms INTEGER NOT NULL, last_event_type TEXT NOT NULL,
  received_at TEXT, revision INTEGER NOT NULL, event_count INTEGER NOT NULL, position TEXT NOT NULL,
  PRIMARY KEY (account, order_id)
) WITHOUT ROWID;
CREATE TABLE checkpoints (projection TEXT PRIMARY KEY, commit_position TEXT NOT NULL, prepare_position TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE INDEX orders_by_status ON orders (account, status, order_id);
CREATE INDEX orders_by_customer ON orders (account, customer, order_id);
CREATE INDEX orders_by_location ON orders (account, location, order_id);
CREATE INDEX orders_by_updated ON orders (account, updated_at_ms);
INSERT INTO meta VALUES ('schema_version', '1');
`

function writeVersion1(path: string, rows: readonly OrderRow[], checkpoint: { commit: bigint; prepare: bigint }): void {
  const db = new Sqlite(path)
  db.pragma('journal_mode = WAL')
  db.exec(VERSION_1)
  const insert = db.prepare(`INSERT INTO orders VALUES (${Array(23).fill('?').join(', ')})`)
  for (const r of rows) {
    insert.run(r.account, r.order_id, r.customer, r.location, r.status, r.address, r.delivery_date, r.recipient, r.reason,
      r.pod?.sha256 ?? null, r.pod?.media_type ?? null, r.pod?.bytes ?? null,
      r.signature?.sha256 ?? null, r.signature?.media_type ?? null, r.signature?.bytes ?? null,
      r.created_at, r.updated_at, Date.parse(r.updated_at), r.last_event_type, r.received_at, r.revision, r.event_count, r.position)
  }
  db.prepare('INSERT INTO checkpoints VALUES (?, ?, ?, ?)').run('orders', String(checkpoint.commit), String(checkpoint.prepare), '2025-01-01T00:00:00Z')
  db.close()
}

/** A store with traffic, and beside it a version-1 read model of that traffic, then more traffic. */
async function olderReadModel(t: { teardown(fn: () => Promise<void>): void }) {
  const dir = await tempDir()
  const store = await openStore(dir.path)
  t.teardown(async () => {
    await store.close()
    await dir.remove()
  })
  await randomTraffic(store, { seed: 21, steps: 60, orders: 10 })
  for (const [orderId, eventDate] of [['frac-a', '2030-01-01T00:00:00.0005Z'], ['frac-b', '2030-01-01T00:00:00.001Z']] as const) {
    await send(store, 'acme', command('acme', 'ORDER_ADD', {
      order_id: orderId, customer: 'c', location: 'l', status: 'pending', address: 'a', delivery_date: eventDate, event_date: eventDate,
    }))
  }
  const scratch = join(dir.path, 'scratch')
  await mkdir(scratch)
  const projector = startProjector({ store, keys: store.keys, dataDir: scratch })
  await projector.waitFor((await store.headPosition())!)
  await projector.stop()
  const model = new ReadModel(scratch)
  writeVersion1(join(dir.path, 'read-model.sqlite'), [...model.allOrders()], model.checkpoint()!)
  model.close()
  await randomTraffic(store, { seed: 22, steps: 60, orders: 10 })
  return { dataDir: dir.path, store, scratch }
}

const layout = (path: string) => {
  const db = new Sqlite(path, { readonly: true })
  try {
    return {
      version: (db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string }).value,
      // What SQLite makes of the DDL, not its text (a renamed table keeps a rewritten CREATE text).
      columns: db.prepare("SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info('orders')").all(),
      indexes: db.prepare(`SELECT list.name, info.seqno, info.name AS column FROM pragma_index_list('orders') AS list,
        pragma_index_info(list.name) AS info ORDER BY list.name, info.seqno`).all(),
    }
  } finally {
    db.close()
  }
}
const since = (text: string) => ({ updatedSince: timestampKey(text), limit: 10 })
const ids = (rows: readonly OrderRow[]) => rows.map((row) => row.order_id)

t.test('the projector migrates a version-1 read model in place and carries on from its checkpoint', async (t) => {
  const { dataDir, store, scratch } = await olderReadModel(t)
  const projector = startProjector({ store, keys: store.keys, dataDir })
  await projector.waitFor((await store.headPosition())!)
  await projector.stop()
  const readModel = new ReadModel(dataDir)
  t.teardown(() => readModel.close())
  t.ok((await verifyOrders({ store, keys: store.keys, readModel })).ok, 'every row equals a fresh fold of its stream')
  t.same(ids(readModel.listOrders('acme', since('2030-01-01T00:00:00.0009Z'))), ['frac-b'])
  t.same(ids(readModel.listOrders('acme', since('2030-01-01T00:00:00.0005Z'))), ['frac-a', 'frac-b'])
  t.same(layout(readModel.path), { ...layout(join(scratch, 'read-model.sqlite')), version: String(READ_MODEL_SCHEMA_VERSION) },
    'the same tables and indexes as a new read model')
})

t.test('a reader that meets a version-1 read model first migrates it, and answers exactly', async (t) => {
  const { dataDir } = await olderReadModel(t)
  const readModel = new ReadModel(dataDir)
  t.teardown(() => readModel.close())
  t.same(ids(readModel.listOrders('acme', since('2030-01-01T00:00:00.0011Z'))), [])
  t.same(ids(readModel.listOrders('acme', since('2030-01-01T00:00:00.001Z'))), ['frac-b'])
  t.equal(layout(readModel.path).version, String(READ_MODEL_SCHEMA_VERSION))
})

t.test('an audit (migrate: false) refuses a version-1 read model and leaves it as it was', async (t) => {
  const { dataDir } = await olderReadModel(t)
  const audit = new ReadModel(dataDir, { migrate: false })
  t.teardown(() => audit.close())
  t.throws(() => audit.listOrders('acme', { limit: 1 }), /schema version 1, older than this Waybill's 5: `waybill serve` or `waybill projector`/)
  t.equal(layout(join(dataDir, 'read-model.sqlite')).version, '1', 'not migrated')
})

t.test('a read model from a newer version is refused with a reason, never misread', async (t) => {
  const dir = await tempDir()
  t.teardown(() => dir.remove())
  const path = join(dir.path, 'read-model.sqlite')
  new ReadModelWriter(path, { open: noOpener }).close()
  const db = new Sqlite(path)
  db.prepare("UPDATE meta SET value = '99' WHERE key = 'schema_version'").run()
  db.close()
  t.throws(() => new ReadModelWriter(path, { open: noOpener }), /schema version 99/)
  const readModel = new ReadModel(dir.path)
  t.teardown(() => readModel.close())
  t.throws(() => readModel.listOrders('acme', { limit: 1 }), /schema version 99/)
})
