import type { Database } from 'better-sqlite3'

/** Bumped when the layout changes, with a migration (none yet: version 1 is the first). */
const WEBHOOKS_SCHEMA_VERSION = 1

/**
 * `webhooks.sqlite` (docs/design.md#webhooks): the endpoints and their secrets (an endpoint has
 * one current secret and, during a rotation's grace, older ones that still sign); each endpoint's
 * checkpoint in the log; its messages, one per matching event, in log order (`seq`); and every
 * attempt. A message is due (`due_at` set) only while it is the first undelivered message of its
 * order for its endpoint: the order's later messages wait behind it (`due_at` NULL). None of it
 * is derived from the log alone (secrets, delivery state), so the file is not rebuilt, only kept.
 * `endpoints.pending` counts each endpoint's pending messages (`countPending`, db/queue.ts): the
 * backlog is read every second, and counting the rows of a receiver down for days (millions)
 * would cost the projector's thread a second each time.
 */
const TABLES = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS endpoints (
  id TEXT PRIMARY KEY,
  url TEXT NOT NULL,
  account TEXT,
  events TEXT,
  created_at TEXT NOT NULL,
  disabled_at TEXT,
  disabled_reason TEXT,
  hold_until INTEGER,
  last_success_at TEXT,
  failing_since INTEGER,
  pending INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS secrets (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  endpoint_id TEXT NOT NULL REFERENCES endpoints (id) ON DELETE CASCADE,
  secret TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at INTEGER
);
CREATE TABLE IF NOT EXISTS checkpoints (
  endpoint_id TEXT PRIMARY KEY REFERENCES endpoints (id) ON DELETE CASCADE,
  commit_position TEXT NOT NULL,
  prepare_position TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS messages (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  endpoint_id TEXT NOT NULL REFERENCES endpoints (id) ON DELETE CASCADE,
  event_id TEXT NOT NULL,
  webhook_id TEXT NOT NULL,
  stream TEXT NOT NULL,
  revision INTEGER NOT NULL,
  event_type TEXT NOT NULL,
  position TEXT NOT NULL,
  received_at TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending', 'delivered')),
  due_at INTEGER,
  attempts INTEGER NOT NULL DEFAULT 0,
  delivered_at TEXT
);
CREATE INDEX IF NOT EXISTS messages_due ON messages (endpoint_id, due_at) WHERE due_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS messages_waiting ON messages (endpoint_id, stream, seq) WHERE state = 'pending';
CREATE INDEX IF NOT EXISTS messages_pending_age ON messages (endpoint_id, received_at) WHERE state = 'pending';
CREATE INDEX IF NOT EXISTS messages_received ON messages (endpoint_id, received_at);
CREATE TABLE IF NOT EXISTS attempts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  endpoint_id TEXT NOT NULL REFERENCES endpoints (id) ON DELETE CASCADE,
  message_seq INTEGER NOT NULL REFERENCES messages (seq) ON DELETE CASCADE,
  at TEXT NOT NULL,
  outcome TEXT NOT NULL,
  status INTEGER,
  duration_ms INTEGER NOT NULL,
  error TEXT
);
CREATE INDEX IF NOT EXISTS attempts_by_endpoint ON attempts (endpoint_id, id);
CREATE INDEX IF NOT EXISTS attempts_by_message ON attempts (message_seq);
`

/** Makes the tables of a new file; a file of another version is refused (this code would misread it). */
export function createWebhooksSchema(db: Database): void {
  if (storedVersion(db) === WEBHOOKS_SCHEMA_VERSION) return
  // IMMEDIATE, and the version read again under the lock: the deliverer and the CLI that meet a
  // new file at once make its tables once.
  db.transaction(() => {
    if (storedVersion(db) === WEBHOOKS_SCHEMA_VERSION) return
    db.exec(TABLES)
    db.prepare(`INSERT INTO meta (key, value) VALUES ('schema_version', ?)`).run(String(WEBHOOKS_SCHEMA_VERSION))
  }).immediate()
}

/** The file's version; null for a new file. Throws for a version this code did not write. */
export function storedVersion(db: Database): number | null {
  const hasMeta = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'`).get() !== undefined
  const row = hasMeta ? db.prepare(`SELECT value FROM meta WHERE key = 'schema_version'`).get() as { value: string } | undefined : undefined
  if (row === undefined) return null
  if (row.value !== String(WEBHOOKS_SCHEMA_VERSION)) {
    throw new Error(`${db.name} has schema version "${row.value}"; this Waybill reads version ${WEBHOOKS_SCHEMA_VERSION}: upgrade Waybill`)
  }
  return WEBHOOKS_SCHEMA_VERSION
}
