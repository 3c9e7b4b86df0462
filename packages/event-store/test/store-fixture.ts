import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import { openSqliteEventStore, type SqliteEventStore, type SqliteEventStoreOptions } from '../src/index.js'

/** A fresh directory under the OS temp dir, removed when the test ends. */
export async function tempDir(t: Test): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'waybill-store-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}

/** A SQLite store on a real file in a fresh temp dir, closed when the test ends. */
export async function freshStore(t: Test, options: Partial<SqliteEventStoreOptions> = {}): Promise<SqliteEventStore> {
  const path = join(await tempDir(t), 'events.db')
  const store = await openSqliteEventStore({ path, ...options })
  t.teardown(() => store.close())
  return store
}
