import type { Database } from 'better-sqlite3'

/**
 * The heads file's schema version (`PRAGMA user_version`). 0: the first release's, one head per
 * tree size and no key table; 1: a head per tree size and key (a rotation signs the same size with
 * both keys) and the key set (docs/audit.md#key-lifecycle); 2: the seals of the log and the heads
 * each set aside, with their consistency proofs to the tree the seal closed (docs/audit.md#sealing).
 */
const VERSION = 2

const SCHEMA = `
CREATE TABLE IF NOT EXISTS heads (
  tree_size INTEGER NOT NULL, root_hash TEXT NOT NULL, timestamp TEXT NOT NULL, signature TEXT NOT NULL, key_id TEXT NOT NULL,
  PRIMARY KEY (tree_size, key_id));
CREATE TABLE IF NOT EXISTS keys (
  key_id TEXT PRIMARY KEY, public_key TEXT NOT NULL, added_at TEXT NOT NULL, retired_at TEXT, replaces TEXT);
CREATE TABLE IF NOT EXISTS seals (
  seal_id INTEGER PRIMARY KEY, statement TEXT NOT NULL, closing_head TEXT NOT NULL, new_head TEXT NOT NULL, finished_at TEXT);
CREATE TABLE IF NOT EXISTS sealed_heads (
  seal_id INTEGER NOT NULL REFERENCES seals, tree_size INTEGER NOT NULL, key_id TEXT NOT NULL, head TEXT NOT NULL, proof TEXT NOT NULL,
  PRIMARY KEY (seal_id, tree_size, key_id));
`

/**
 * Makes the schema, or moves a first-release file to it (its heads kept, the table rebuilt with
 * the two-column key), in one write transaction: several processes may open the file at once,
 * and the first to take the lock does it.
 */
export function ensureHeadStoreSchema(db: Database): void {
  if (db.pragma('user_version', { simple: true }) === VERSION) return
  db.transaction(() => {
    const version = db.pragma('user_version', { simple: true }) as number
    if (version === VERSION) return
    if (version > VERSION) throw new Error(`${db.name} has heads schema version ${version}, newer than this Waybill's ${VERSION}: upgrade Waybill`)
    const existing = db.prepare<[], { sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'heads'").get()
    if (existing !== undefined && /tree_size INTEGER PRIMARY KEY/i.test(existing.sql)) db.exec('ALTER TABLE heads RENAME TO heads_v0')
    db.exec(SCHEMA)
    if (existing !== undefined && /tree_size INTEGER PRIMARY KEY/i.test(existing.sql)) {
      db.exec('INSERT INTO heads SELECT tree_size, root_hash, timestamp, signature, key_id FROM heads_v0 ORDER BY tree_size; DROP TABLE heads_v0')
    }
    db.pragma(`user_version = ${VERSION}`)
  }).immediate()
}
