import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { KeyErasure, SubjectKeyStore } from '../key-store.js'
import { forgetKey } from '../seal.js'
import { KEY_DATABASE_FILE, keyStatements, keyWrites, openKeyDatabase } from './key-database.js'
import { InlineKeyWriter, type KeyWriter } from './key-writer.js'
import { WorkerKeyWriter } from './worker-key-writer.js'

export interface SqliteKeyStoreOptions {
  /** The key store's directory (made 0700), outside the data directory. */
  readonly dir: string
  /**
   * Where new keys are committed: 'worker' (the servers: a thread of its own, many keys per fsync)
   * or 'inline' (commands and tests: on the calling thread). Default 'inline'.
   */
  readonly writer?: 'worker' | 'inline'
}

/**
 * The embedded key store: `<dir>/subject-keys.sqlite`. Reads go through a connection of the
 * caller's thread; new keys through the writer; erasures through a connection of their own,
 * which empties the journal after it.
 */
export async function openSqliteKeyStore(options: SqliteKeyStoreOptions): Promise<SubjectKeyStore & { count(): number }> {
  mkdirSync(options.dir, { recursive: true, mode: 0o700 })
  const path = join(options.dir, KEY_DATABASE_FILE)
  const db = openKeyDatabase(path)
  const statements = keyStatements(db)
  let writer: KeyWriter
  try {
    writer = options.writer === 'worker' ? await WorkerKeyWriter.open(path) : new InlineKeyWriter(db)
  } catch (error) {
    db.close()
    throw error
  }
  return {
    get: (account, orderId) => statements.get(account, orderId),
    getMany: (orders) => statements.getMany(orders),
    async create(account, orderId, customer) {
      const [key] = await writer.create([{ account, orderId, customer }])
      return key as NonNullable<typeof key>
    },
    createMany: (requests) => writer.create(requests),
    erase(account, orderIds, note) {
      const keyIds = orderIds.map((orderId) => statements.get(account, orderId))
      const outcomes: ReadonlyMap<string, KeyErasure> = keyWrites(db).erase(account, orderIds, note)
      for (const key of keyIds) if (key !== null && key !== 'erased') forgetKey(key.id)
      return Promise.resolve(outcomes)
    },
    ordersOf: (account, customer) => Promise.resolve(statements.ordersOf.all(account, customer).map((row) => row.order_id)),
    customerOf: (account, orderId) => Promise.resolve(statements.customerOf.get(account, orderId)?.customer ?? null),
    customerErased: (account, customer) => Promise.resolve((statements.tagged.get(account, statements.tagOf(account, customer))?.n ?? 0) > 0),
    erasures: () => Promise.resolve(statements.erasures()),
    count: () => statements.count.get()?.n ?? 0,
    async close() {
      await writer.close()
      db.close()
    },
  }
}
