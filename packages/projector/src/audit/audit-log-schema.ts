import type { Database } from 'better-sqlite3'

/** Bumped when the layout changes, with a migration (none yet: version 1 is the first). */
const AUDIT_LOG_SCHEMA_VERSION = 1

/**
 * The audit log's file (docs/audit.md#the-audit-log-file): every leaf hash with the stream and
 * revision it stands for, the root of every perfect subtree the tree completed (from level 4),
 * and the projection's own checkpoint, one row, moved in each batch's transaction.
 */
const TABLES = `
CREATE TABLE IF NOT EXISTS leaves (
  leaf_index INTEGER PRIMARY KEY,
  hash BLOB NOT NULL,
  stream TEXT NOT NULL,
  revision INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS nodes (
  level INTEGER NOT NULL,
  idx INTEGER NOT NULL,
  hash BLOB NOT NULL,
  PRIMARY KEY (level, idx)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS checkpoint (
  one INTEGER PRIMARY KEY CHECK (one = 1),
  commit_position TEXT NOT NULL,
  prepare_position TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
`

/** The proof and history routes find an order's leaves by stream; a rebuild makes it at the end. */
const INDEXES = 'CREATE INDEX IF NOT EXISTS leaves_by_stream ON leaves (stream, revision);'

/**
 * Creates the tables (and the index unless `withIndexes` is false) in a new file; a file from
 * a newer version is refused, since this code would misread it.
 */
export function createAuditLogSchema(db: Database, withIndexes = true): void {
  if (storedVersion(db) !== AUDIT_LOG_SCHEMA_VERSION) {
    // IMMEDIATE, and the version read again under the lock: the projector and a reader that
    // meet a new file at once make its tables once.
    db.transaction(() => {
      if (storedVersion(db) === AUDIT_LOG_SCHEMA_VERSION) return
      db.exec(TABLES)
      db.prepare(`INSERT INTO meta (key, value) VALUES ('schema_version', ?)`).run(String(AUDIT_LOG_SCHEMA_VERSION))
    }).immediate()
  }
  if (withIndexes) createAuditLogIndexes(db)
}

export function createAuditLogIndexes(db: Database): void {
  db.exec(INDEXES)
}

/** The file's version; null for a new file. Throws for a version this code did not write. */
export function storedVersion(db: Database): number | null {
  const hasMeta = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'`).get() !== undefined
  const row = hasMeta ? db.prepare(`SELECT value FROM meta WHERE key = 'schema_version'`).get() as { value: string } | undefined : undefined
  if (row === undefined) return null
  const version = Number(row.value)
  if (version !== AUDIT_LOG_SCHEMA_VERSION) {
    throw new Error(`audit log ${db.name} has schema version "${row.value}"; this Waybill reads version ${AUDIT_LOG_SCHEMA_VERSION}: ` +
      'upgrade Waybill, or run `waybill audit rebuild`')
  }
  return version
}
