import { closeSync, existsSync, openSync } from 'node:fs'
import { join } from 'node:path'
import Sqlite from 'better-sqlite3'
import type { Database } from 'better-sqlite3'
import { createWebhooksSchema, storedVersion } from './schema.js'

/** The webhooks file in the data directory: endpoints, secrets, checkpoints, messages, attempts. */
export const WEBHOOKS_FILE = 'webhooks.sqlite'

/**
 * Who opens the file, which sets how durable its commits are. The operator's changes (endpoints,
 * secrets) are derived from nothing, so each is synced (FULL). The deliverer's (checkpoints,
 * delivery state, attempts) are synced by WAL checkpoints only (NORMAL): a power cut may take its
 * last commits, and what they recorded is then done again (an event queued again, a message sent
 * again with the same webhook-id), which at-least-once delivery allows.
 */
export type WebhookDbRole = 'operator' | 'deliverer'

/** Opens (and on first use creates, mode 0600: it holds secrets) `<dataDir>/webhooks.sqlite`. */
export function openWebhookDb(dataDir: string, role: WebhookDbRole): Database {
  const path = join(dataDir, WEBHOOKS_FILE)
  // SQLite would create it with the umask's mode; the secrets in it are for this user only, and
  // SQLite gives its -wal and -shm files the mode of the database file.
  if (!existsSync(path)) closeSync(openSync(path, 'a', 0o600))
  const db = new Sqlite(path)
  try {
    db.pragma('journal_mode = WAL')
    db.pragma(role === 'operator' ? 'synchronous = FULL' : 'synchronous = NORMAL')
    db.pragma('busy_timeout = 5000')
    db.pragma('foreign_keys = ON')
    createWebhooksSchema(db)
  } catch (error) {
    db.close()
    throw error
  }
  return db
}

/**
 * Opens the file for reading (the read routes, `waybill webhooks list` on a data dir that has
 * none): null while it does not exist, so reading never creates it.
 */
export function openWebhookDbForReading(dataDir: string): Database | null {
  const path = join(dataDir, WEBHOOKS_FILE)
  if (!existsSync(path)) return null
  const db = new Sqlite(path, { readonly: true, fileMustExist: true })
  try {
    db.pragma('busy_timeout = 5000')
    // A file the deliverer has not made its tables in yet reads as empty.
    if (storedVersion(db) === null) {
      db.close()
      return null
    }
  } catch (error) {
    db.close()
    throw error
  }
  return db
}
