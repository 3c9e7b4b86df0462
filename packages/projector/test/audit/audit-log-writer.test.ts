import { join } from 'node:path'
import Sqlite from 'better-sqlite3'
import t from 'tap'
import type { Position, ProjectionEvent } from '@waybill/event-store'
import { hashesOf, toHex, treeRoot } from '@waybill/merkle'
import { canonicalJson } from '@waybill/domain'
import { AuditLog, AuditLogWriter, eventLeafHash, leafBytes } from '../../src/index.js'
import { tempDir } from '../helpers.js'

const at = (n: number): Position => ({ commit: BigInt(n), prepare: BigInt(n) })
const event = (n: number, stream = `order-acme-${n}`): ProjectionEvent => ({
  streamName: stream, id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`, type: 'OrderAdded', revision: 0, position: at(n),
  data: { order_id: String(n), event_date: '2026-01-01T00:00:00Z' }, metadata: { received_at: '2026-01-01T00:00:01Z' },
})

t.test('the writer appends a leaf per order event after its checkpoint, moves the checkpoint in the same transaction, and nothing twice', async (t) => {
  const dir = await tempDir()
  t.teardown(() => dir.remove())
  const path = join(dir.path, 'audit-log.sqlite')
  const writer = new AuditLogWriter(path)
  t.teardown(() => writer.close())
  t.equal(writer.checkpoint(), null)
  t.same(writer.applyBatch([event(1), event(2), event(3, 'apikey-k')], at(4)), { applied: 2 }, 'a key event is no leaf')
  t.same(writer.checkpoint(), at(4), 'the checkpoint went as far as the read did')
  t.same(writer.applyBatch([event(2), event(5), event(6)], null), { applied: 2 }, 'an event at or before the checkpoint is a duplicate')
  t.same(writer.checkpoint(), at(6))
  t.same(writer.applyBatch([], null), { applied: 0 })
  t.same(writer.checkpoint(), at(6), 'an empty read moves nothing')
  const leaves = [1, 2, 5, 6].map((n) => eventLeafHash(event(n)))
  t.equal(writer.tree.size(), 4)
  const log = new AuditLog(dir.path)
  t.teardown(() => log.close())
  t.equal(toHex(log.root(4)), toHex(treeRoot(hashesOf(leaves), 4)))
  t.same(log.checkpoint(), at(6), 'a reader sees the checkpoint too')
  t.same(log.leavesOf('order-acme-5'), [{ leafIndex: 2, revision: 0, hash: leaves[2] }])
  t.throws(() => log.leafHash(4), RangeError)
})

t.test('a leaf from the data\'s stored text is the leaf from its parsed value', async (t) => {
  const data = { event_date: '2026-01-01T00:00:00.123Z', order_id: 'ü-"1"\\', personal: { box: 'x', iv: 'y', key: 'k' }, pod: { blob: 'b', bytes: 3, media_type: 'image/png' } }
  const parsed: ProjectionEvent = { ...event(7), data }
  const read: ProjectionEvent = { ...event(7), data: { event_date: data.event_date }, dataText: canonicalJson(data) }
  t.equal(toHex(eventLeafHash(read)), toHex(eventLeafHash(parsed)))
  t.same(leafBytes(read), leafBytes(parsed))
  t.match(leafBytes(read).toString(), /^\{"data":\{"event_date":"2026-01-01T00:00:00.123Z","order_id":"ü-\\"1\\"\\\\",/)
  t.not(toHex(eventLeafHash({ ...read, dataText: canonicalJson({ ...data, order_id: '2' }) })), toHex(eventLeafHash(parsed)), 'the text is what the leaf holds')
  // Members that are not strings, and strings JSON escapes, come out as leafText writes them.
  const odd: ProjectionEvent = {
    ...event(8, 'order-acme-\u2028"q"\\\u0001'), type: 'Order"Odd"\u00e9', id: 'id-\ud800',
    data: { event_date: 17, order_id: '8' }, metadata: { received_at: null, schema_version: 2 },
  }
  for (const variant of [odd, { ...odd, data: { order_id: '8' }, metadata: {} }, { ...odd, metadata: { received_at: '2026-01-01T00:00:01.5Z' } }]) {
    t.same(leafBytes({ ...variant, dataText: canonicalJson(variant.data) }), leafBytes(variant), JSON.stringify(variant.metadata))
  }
})

t.test('an audit log of another schema version is refused, by the writer and by readers', async (t) => {
  const dir = await tempDir()
  t.teardown(() => dir.remove())
  const path = join(dir.path, 'audit-log.sqlite')
  new AuditLogWriter(path).close()
  const db = new Sqlite(path)
  db.prepare("UPDATE meta SET value = '2' WHERE key = 'schema_version'").run()
  db.close()
  t.throws(() => new AuditLogWriter(path), /audit log .* has schema version "2"; this Waybill reads version 1: upgrade Waybill, or run `waybill audit rebuild`/)
  const log = new AuditLog(dir.path)
  t.teardown(() => log.close())
  t.throws(() => log.size(), /schema version "2"/)
})

t.test('a reader that may not create refuses a missing or foreign file, and makes nothing', async (t) => {
  const dir = await tempDir()
  t.teardown(() => dir.remove())
  const log = new AuditLog(dir.path, { create: false })
  t.teardown(() => log.close())
  t.throws(() => log.size(), /unable to open database file|directory does not exist|SQLITE_CANTOPEN/)
  const other = new Sqlite(join(dir.path, 'audit-log.sqlite'))
  other.exec('CREATE TABLE something (x)')
  other.close()
  t.throws(() => log.size(), /holds no audit log/)
})
