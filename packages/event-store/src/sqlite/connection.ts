import Database from 'better-sqlite3'

/** How long a connection waits for another writer (this process or another) before giving up. */
export const DEFAULT_BUSY_TIMEOUT_MS = 5_000

/**
 * Revisions are per stream and `UNIQUE(stream, revision)` makes a lost race impossible to commit;
 * `UNIQUE(event_id)` backs idempotent re-appends. `position` is the rowid: nothing is ever
 * deleted and writers are serialised by `BEGIN IMMEDIATE`, so it grows by one per event with no
 * gaps, in commit order, whichever process writes.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  position   INTEGER PRIMARY KEY,
  stream     TEXT    NOT NULL,
  category   TEXT    NOT NULL,
  revision   INTEGER NOT NULL,
  event_id   TEXT    NOT NULL,
  type       TEXT    NOT NULL,
  data       TEXT    NOT NULL,
  metadata   TEXT    NOT NULL,
  hash       TEXT    NOT NULL,
  created_at INTEGER NOT NULL,
  UNIQUE (stream, revision),
  UNIQUE (event_id)
) STRICT;
CREATE INDEX IF NOT EXISTS events_by_category ON events (category, position);
`

/**
 * Each connection's page cache: 16 MiB (SQLite's default is 2 MiB), allocated as it fills. An
 * append searches and grows the log's indexes (stream and revision, event id) at a random place;
 * at 10,000,000 events their inner pages alone outgrow 2 MiB, and every append read them again
 * from the operating system (`pnpm bench:scale`).
 */
const CACHE_SIZE = -16 * 1024

export interface ConnectionOptions {
  readonly busyTimeoutMs?: number
  /** `PRAGMA wal_autocheckpoint` in pages, for a write connection; SQLite's default (1,000) if absent. */
  readonly walAutocheckpointPages?: number
}

/** Opens a connection with the pragmas every Waybill connection needs (WAL, fsync on commit). */
export function openConnection(path: string, options: ConnectionOptions = {}): Database.Database {
  const db = new Database(path, { timeout: options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS })
  try {
    db.pragma('journal_mode = WAL')
    // FULL: in WAL mode every commit fsyncs the WAL, so an acknowledged append survives power loss.
    db.pragma('synchronous = FULL')
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS}`)
    db.pragma(`cache_size = ${CACHE_SIZE}`)
    if (options.walAutocheckpointPages !== undefined) db.pragma(`wal_autocheckpoint = ${Math.trunc(options.walAutocheckpointPages)}`)
    return db
  } catch (error) {
    db.close()
    throw error
  }
}

/** Creates the schema if absent. Run by the writer; idempotent, so several processes may race it. */
export function ensureSchema(db: Database.Database): void {
  db.transaction(() => db.exec(SCHEMA)).immediate()
}
