import Sqlite from 'better-sqlite3'
import type { Database } from 'better-sqlite3'

/**
 * A projection's SQLite file, opened for writing with its schema made or checked by `createSchema`
 * (which throws for a file it refuses, a newer schema's). Live: WAL, synchronous NORMAL (every row
 * can be derived again from the event log, which is written with full sync), a wait on a busy
 * file. Bulk, for a rebuild's new file nobody reads yet: no journal, no fsync, a larger cache; a
 * crash leaves a file the next rebuild throws away. Either way what a write replaces or deletes
 * is overwritten with zeros (`secure_delete`): an erased address must not linger in a free page
 * (docs/design.md#personal-data).
 */
export function openProjectionFile(path: string, bulk: boolean, createSchema: (db: Database, live: boolean) => void): Database {
  const db = new Sqlite(path)
  db.pragma('secure_delete = ON')
  if (bulk) {
    db.pragma('journal_mode = OFF')
    db.pragma('synchronous = OFF')
    db.pragma('cache_size = -65536')
  } else {
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = NORMAL')
    db.pragma('busy_timeout = 5000')
    // 16 MiB (SQLite's default is 2): each batch updates rows and index entries all over files
    // that grow with the log, and their inner pages outgrow 2 MiB (`pnpm bench:scale`).
    db.pragma('cache_size = -16384')
  }
  try {
    createSchema(db, !bulk)
  } catch (error) {
    // The loop retries a refused file with back-off: no handle left open per try.
    db.close()
    throw error
  }
  return db
}
