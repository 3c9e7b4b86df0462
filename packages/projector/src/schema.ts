import type { Database } from 'better-sqlite3'

/** Bumped when the table layout changes; a read model of another version is rebuilt, not migrated. */
export const READ_MODEL_SCHEMA_VERSION = 1

const TABLES = `
CREATE TABLE IF NOT EXISTS orders (
  account TEXT NOT NULL,
  order_id TEXT NOT NULL,
  customer TEXT NOT NULL,
  location TEXT NOT NULL,
  status TEXT NOT NULL,
  address TEXT,
  delivery_date TEXT,
  recipient TEXT,
  reason TEXT,
  pod_sha256 TEXT, pod_media_type TEXT, pod_bytes INTEGER,
  signature_sha256 TEXT, signature_media_type TEXT, signature_bytes INTEGER,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  updated_at_ms INTEGER NOT NULL,
  last_event_type TEXT NOT NULL,
  received_at TEXT,
  revision INTEGER NOT NULL,
  event_count INTEGER NOT NULL,
  position TEXT NOT NULL,
  PRIMARY KEY (account, order_id)
) WITHOUT ROWID;
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
CREATE INDEX IF NOT EXISTS orders_by_updated ON orders (account, updated_at_ms);
`

/**
 * Creates the tables, and the indexes unless `withIndexes` is false: a rebuild loads first and
 * indexes once at the end, which is several times faster than maintaining them row by row.
 */
export function createSchema(db: Database, withIndexes = true): void {
  db.exec(TABLES)
  db.prepare(`INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?)`).run(String(READ_MODEL_SCHEMA_VERSION))
  if (withIndexes) createIndexes(db)
}

export function createIndexes(db: Database): void {
  db.exec(INDEXES)
}
