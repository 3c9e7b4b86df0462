import { createHmac, randomBytes, randomUUID } from 'node:crypto'
import Database from 'better-sqlite3'
import type { ErasedKey, ErasureNote, KeyErasure, KeyLookup, KeyRequest, OrderRef } from '../key-store.js'
import type { OrderKey } from '../seal.js'

/** The key store's file in its directory. */
export const KEY_DATABASE_FILE = 'subject-keys.sqlite'

/**
 * One row per order that ever had a key. A destroyed key keeps its row with `secret` and
 * `customer` null, `erased_at` and the note set, and the customer's tag (an HMAC keyed with the
 * store's own secret): the order is known erased, and so is its customer. The index finds a customer's
 * orders for an erasure or an access request; it holds no row once the customer is erased.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS order_keys (
  account    TEXT NOT NULL,
  order_id   TEXT NOT NULL,
  key_id     TEXT NOT NULL,
  secret     BLOB,
  customer   TEXT,
  created_at TEXT NOT NULL,
  erased_at  TEXT,
  erase_scope TEXT,
  erase_requested_by TEXT,
  erase_reason TEXT,
  customer_tag BLOB,
  PRIMARY KEY (account, order_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS order_keys_by_customer ON order_keys (account, customer, order_id) WHERE customer IS NOT NULL;
CREATE INDEX IF NOT EXISTS order_keys_by_tag ON order_keys (account, customer_tag) WHERE customer_tag IS NOT NULL;
CREATE TABLE IF NOT EXISTS key_store_secrets (name TEXT PRIMARY KEY, secret BLOB NOT NULL) STRICT;
INSERT OR IGNORE INTO key_store_secrets VALUES ('customer_tag', randomblob(32));
`

const BUSY_TIMEOUT_MS = 5_000

/**
 * A connection to the key store. Writers fsync every commit (a key must be on disk before the
 * event it seals is acknowledged) and overwrite what they delete (`secure_delete`), so a destroyed
 * secret is not left in a free page.
 */
export function openKeyDatabase(path: string, options: { readonly readonly?: boolean } = {}): Database.Database {
  const db = new Database(path, { timeout: BUSY_TIMEOUT_MS, readonly: options.readonly === true, fileMustExist: options.readonly === true })
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`)
    // 16 MiB (SQLite's default is 2): every new order's key goes in at a random place of a table
    // with a row per order ever (`pnpm bench:scale`).
    db.pragma('cache_size = -16384')
    if (options.readonly !== true) {
      db.pragma('journal_mode = WAL')
      db.pragma('synchronous = FULL')
      db.pragma('secure_delete = ON')
      db.transaction(() => db.exec(SCHEMA)).immediate()
    }
    return db
  } catch (error) {
    db.close()
    throw error
  }
}


interface KeyRow {
  readonly key_id: string
  readonly secret: Buffer | null
}

const lookupOf = (row: KeyRow | undefined): KeyLookup =>
  row === undefined ? null : row.secret === null ? 'erased' : { id: row.key_id, secret: row.secret }

/** The reads of one connection, prepared once. */
export interface KeyStatements {
  readonly get: (account: string, orderId: string) => KeyLookup
  readonly getMany: (orders: readonly OrderRef[]) => KeyLookup[]
  readonly ordersOf: Database.Statement<[string, string], { order_id: string }>
  readonly customerOf: Database.Statement<[string, string], { customer: string | null }>
  readonly count: Database.Statement<[], { n: number }>
  /** The customer's tag: an HMAC of account and customer keyed with the store's secret. */
  readonly tagOf: (account: string, customer: string) => Buffer
  readonly tagged: Database.Statement<[string, Buffer], { n: number }>
  readonly erasures: () => ErasedKey[]
}

export function keyStatements(db: Database.Database): KeyStatements {
  const tagSecret = (db.prepare<[], { secret: Buffer }>("SELECT secret FROM key_store_secrets WHERE name = 'customer_tag'").get()?.secret) ?? Buffer.alloc(0)
  const erased = db.prepare<[], { account: string; order_id: string; erased_at: string; erase_scope: string; erase_requested_by: string; erase_reason: string }>(
    'SELECT account, order_id, erased_at, erase_scope, erase_requested_by, erase_reason FROM order_keys WHERE erased_at IS NOT NULL ORDER BY erased_at, account, order_id')
  const select = db.prepare<[string, string], KeyRow>('SELECT key_id, secret FROM order_keys WHERE account = ? AND order_id = ?')
  // The orders as one JSON array of [account, order id] pairs, each found by the primary key:
  // one statement for any number of orders (2.2 against 4.7 µs an order, 250 at a time, measured
  // on a key store of 250,000 orders).
  const selectMany = db.prepare<[string], [number, string, Buffer | null]>(`SELECT j.key, o.key_id, o.secret FROM json_each(?) AS j
    JOIN order_keys AS o ON o.account = j.value ->> 0 AND o.order_id = j.value ->> 1`).raw(true)
  return {
    get: (account: string, orderId: string): KeyLookup => lookupOf(select.get(account, orderId)),
    getMany: (orders: readonly OrderRef[]): KeyLookup[] => {
      const found = new Array<KeyLookup>(orders.length).fill(null)
      if (orders.length === 0) return found
      for (const [i, keyId, secret] of selectMany.all(JSON.stringify(orders.map((order) => [order.account, order.orderId])))) {
        found[i] = lookupOf({ key_id: keyId, secret })
      }
      return found
    },
    ordersOf: db.prepare<[string, string], { order_id: string }>('SELECT order_id FROM order_keys WHERE account = ? AND customer = ? ORDER BY order_id'),
    customerOf: db.prepare<[string, string], { customer: string | null }>('SELECT customer FROM order_keys WHERE account = ? AND order_id = ?'),
    count: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM order_keys'),
    tagOf: (account, customer) => createHmac('sha256', tagSecret).update(`${account}\n${customer}`).digest(),
    tagged: db.prepare<[string, Buffer], { n: number }>('SELECT count(*) AS n FROM order_keys WHERE account = ? AND customer_tag = ?'),
    erasures: () => erased.all().map((row) => ({
      account: row.account, orderId: row.order_id, at: row.erased_at, scope: row.erase_scope as ErasureNote['scope'],
      requestedBy: row.erase_requested_by, reason: row.erase_reason,
    })),
  }
}

/** The writes of one write connection, prepared once. */
export function keyWrites(db: Database.Database) {
  const { get, tagOf, customerOf } = keyStatements(db)
  const insert = db.prepare('INSERT INTO order_keys (account, order_id, key_id, secret, customer, created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING')
  const erase = db.prepare(`UPDATE order_keys SET secret = NULL, customer = NULL, erased_at = ?, erase_scope = ?, erase_requested_by = ?,
    erase_reason = ?, customer_tag = ? WHERE account = ? AND order_id = ?`)
  return {
    /**
     * Makes the keys of these orders that have none, in one transaction (one fsync for all), and
     * returns each order's key (or `'erased'`), in the order asked.
     */
    create: (requests: readonly KeyRequest[], at: string): Array<OrderKey | 'erased'> => db.transaction(() => requests.map((request) => {
      insert.run(request.account, request.orderId, randomUUID(), randomBytes(32), request.customer, at)
      return get(request.account, request.orderId) as OrderKey | 'erased'
    })).immediate(),
    /**
     * Destroys the keys of these orders: their rows keep only that they were (secret and customer
     * overwritten, `secure_delete` zeroing the old cells), then the WAL is checkpointed and
     * truncated, so that no page holding them is left in the journal either.
     */
    erase: (account: string, orderIds: readonly string[], note: ErasureNote): Map<string, KeyErasure> => {
      const outcomes = db.transaction(() => new Map(orderIds.map((orderId): [string, KeyErasure] => {
        const before = get(account, orderId)
        if (before === null) return [orderId, 'unknown']
        if (before === 'erased') return [orderId, 'already_erased']
        const customer = customerOf.get(account, orderId)?.customer
        erase.run(note.at, note.scope, note.requestedBy, note.reason, customer == null ? null : tagOf(account, customer), account, orderId)
        return [orderId, 'erased']
      }))).immediate()
      const checkpoint = db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>
      if (checkpoint[0]?.busy !== 0) throw new Error('the key store\'s journal could not be emptied (a reader held it): erase again to finish')
      return outcomes
    },
  }
}
