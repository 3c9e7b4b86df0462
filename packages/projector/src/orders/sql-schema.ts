import type { Database } from 'better-sqlite3'
import { timestampKey } from './timestamp-key.js'
import { RefusedFileError } from '../generation/refused-file.js'

/**
 * Bumped when the table layout changes, with a step in `migrateFrom` that brings a file of the
 * previous version up to it. Version 2: `updated_at_key` (exact, text) for `updated_at_ms`.
 * Version 3 held the audit log's tree (`merkle_leaves`, `merkle_nodes`); version 4 no longer
 * does: the audit log is a projection of its own, in its own file (docs/audit.md#the-audit-log-file).
 */
export const READ_MODEL_SCHEMA_VERSION = 4

/** The SQL types the orders table uses, and what SQLite hands back for each. */
interface SqlValue {
  readonly 'TEXT NOT NULL': string
  readonly TEXT: string | null
  readonly 'INTEGER NOT NULL': number
  readonly INTEGER: number | null
}

/**
 * The `orders` table, column by column, in table order: the one place its columns are written.
 * The DDL, `OrderRecord`, `ORDER_COLUMNS` and the migration's copy are derived from it. Images are
 * flat, three columns each, so a row needs no JSON decoding.
 */
const ORDER_COLUMN_TYPES = {
  account: 'TEXT NOT NULL',
  order_id: 'TEXT NOT NULL',
  customer: 'TEXT NOT NULL',
  location: 'TEXT NOT NULL',
  status: 'TEXT NOT NULL',
  address: 'TEXT',
  delivery_date: 'TEXT',
  recipient: 'TEXT',
  reason: 'TEXT',
  pod_sha256: 'TEXT',
  pod_media_type: 'TEXT',
  pod_bytes: 'INTEGER',
  signature_sha256: 'TEXT',
  signature_media_type: 'TEXT',
  signature_bytes: 'INTEGER',
  created_at: 'TEXT NOT NULL',
  updated_at: 'TEXT NOT NULL',
  updated_at_key: 'TEXT NOT NULL',
  last_event_type: 'TEXT NOT NULL',
  received_at: 'TEXT',
  revision: 'INTEGER NOT NULL',
  event_count: 'INTEGER NOT NULL',
  position: 'TEXT NOT NULL',
} as const satisfies Readonly<Record<string, keyof SqlValue>>

/** A row of the orders table as SQLite returns it. */
export type OrderRecord = { readonly [Name in keyof typeof ORDER_COLUMN_TYPES]: SqlValue[(typeof ORDER_COLUMN_TYPES)[Name]] }

/** The orders table's column names, in table order. */
export const ORDER_COLUMNS = Object.keys(ORDER_COLUMN_TYPES) as ReadonlyArray<keyof OrderRecord>

/** A record's values in `ORDER_COLUMNS` order, for a positional INSERT. */
export function columnValues(record: OrderRecord): unknown[] {
  return ORDER_COLUMNS.map((name) => record[name])
}

const ORDERS_TABLE = `
CREATE TABLE IF NOT EXISTS orders (
  ${ORDER_COLUMNS.map((name) => `${name} ${ORDER_COLUMN_TYPES[name]}`).join(',\n  ')},
  PRIMARY KEY (account, order_id)
) WITHOUT ROWID;
`

const OTHER_TABLES = `
CREATE TABLE IF NOT EXISTS checkpoints (
  projection TEXT PRIMARY KEY,
  commit_position TEXT NOT NULL,
  prepare_position TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
`

/** The list filters of GET /v1/orders; each ends in order_id, the keyset the cursor pages on. */
const INDEXES = `
CREATE INDEX IF NOT EXISTS orders_by_status ON orders (account, status, order_id);
CREATE INDEX IF NOT EXISTS orders_by_customer ON orders (account, customer, order_id);
CREATE INDEX IF NOT EXISTS orders_by_location ON orders (account, location, order_id);
CREATE INDEX IF NOT EXISTS orders_by_updated ON orders (account, updated_at_key);
`

/**
 * Creates the tables, or brings an older file's up to this version (unless `migrate` is false,
 * for an audit that must not change what it audits: then an older file is refused), and the
 * indexes unless `withIndexes` is false: a rebuild loads first and indexes once at the end, which is several
 * times faster than maintaining them row by row. A file from a newer version is refused: this
 * code would misread it.
 */
export function createSchema(db: Database, withIndexes = true, migrate = true): void {
  // Readers open the model too: in the usual case (current version) this is one read, no lock.
  const found = storedVersion(db)
  if (!migrate && found !== null && found < READ_MODEL_SCHEMA_VERSION) {
    const summary = `schema version ${found}, older than this Waybill's ${READ_MODEL_SCHEMA_VERSION}`
    throw new RefusedFileError('read model', summary, `read model ${db.name} has ${summary}: ` +
      '`waybill serve` or `waybill projector` of this version migrates it when it opens it (or run `waybill rebuild`)')
  }
  if (found !== READ_MODEL_SCHEMA_VERSION) {
    // IMMEDIATE, and the version read again under the lock: a projector and a reader meeting
    // the same old file at once wait for each other, and only the first one migrates it.
    db.transaction(() => {
      const version = storedVersion(db)
      if (version !== null && version > READ_MODEL_SCHEMA_VERSION) {
        const summary = `schema version ${version}, newer than this Waybill's ${READ_MODEL_SCHEMA_VERSION}`
        throw new RefusedFileError('read model', summary, `read model ${db.name} has ${summary}: upgrade Waybill or run \`waybill rebuild\``)
      }
      db.exec(OTHER_TABLES)
      if (version === null) db.exec(ORDERS_TABLE)
      else if (version < READ_MODEL_SCHEMA_VERSION) migrateFrom(db, version)
      db.prepare(`INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)`).run(String(READ_MODEL_SCHEMA_VERSION))
    }).immediate()
  }
  if (withIndexes) createIndexes(db)
}

export function createIndexes(db: Database): void {
  db.exec(INDEXES)
}

/** The file's version; null for a new file (no orders table yet). */
function storedVersion(db: Database): number | null {
  const tables = new Set((db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as Array<{ name: string }>).map((t) => t.name))
  if (!tables.has('orders')) return null
  const row = tables.has('meta')
    ? db.prepare(`SELECT value FROM meta WHERE key = 'schema_version'`).get() as { value: string } | undefined
    : undefined
  // Version 1 wrote its tables and then its version row in two statements, so a crash between
  // them left a version-1 file without the row. Later versions write both in one transaction.
  if (row === undefined) return 1
  const version = Number(row.value)
  if (!Number.isSafeInteger(version) || version < 1) {
    const summary = `schema version "${row.value}", which no Waybill wrote`
    throw new RefusedFileError('read model', summary, `read model ${db.name} has ${summary}`)
  }
  return version
}

/**
 * Brings a read model of version `from` up to the current one, inside the caller's transaction.
 * A migration, not a rebuild from the log: every value the new layout needs is already in the
 * file, so the model keeps answering (and keeps its checkpoint) across an upgrade.
 */
function migrateFrom(db: Database, from: number): void {
  if (from <= 1) toVersion2(db)
  if (from <= 3) toVersion4(db)
}

/**
 * Version 4 drops the audit tree's tables that version 3 kept here: the audit projection keeps
 * the tree in `audit-log.sqlite` and builds it there from the start of the log, checked against
 * the heads already kept (docs/audit.md#upgrading-from-a-tree-in-the-read-model). Dropped rather
 * than left: a second copy of the tree that nothing writes any more would only go stale. The
 * rows and the checkpoint stay: nothing the orders need changed. (Version 3 had cleared the
 * checkpoint to add the leaves; a version-2 file no longer needs that either.)
 */
function toVersion4(db: Database): void {
  db.exec('DROP TABLE IF EXISTS merkle_leaves; DROP TABLE IF EXISTS merkle_nodes;')
}

/**
 * Version 2 filters `updated_since` on `updated_at_key` (exact to the nanosecond) instead of
 * `updated_at_ms`. `updated_at` holds the event date as sent, so the key is derived from it
 * exactly as the projection derives it. The table is copied into the current DDL rather than
 * altered column by column, so a migrated file has the very layout of a new one.
 */
function toVersion2(db: Database): void {
  db.function('waybill_timestamp_key', { deterministic: true }, (text: unknown) => timestampKey(String(text)))
  db.exec('ALTER TABLE orders RENAME TO orders_version_1')
  db.exec(ORDERS_TABLE)
  const columns = ORDER_COLUMNS.join(', ')
  const values = ORDER_COLUMNS.map((name) => name === 'updated_at_key' ? 'waybill_timestamp_key(updated_at)' : name).join(', ')
  db.exec(`INSERT INTO orders (${columns}) SELECT ${values} FROM orders_version_1 ORDER BY account, order_id`)
  // Dropping the old table drops its indexes (orders_by_updated among them); make the new ones.
  db.exec('DROP TABLE orders_version_1')
  createIndexes(db)
}
