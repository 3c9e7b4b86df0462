import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { openFileBlobStore, openSqliteEventStore, type EventStore } from '@waybill/event-store'
import { openSqliteKeyStore, type SubjectKeyStore } from '@waybill/personal-data'
import type { WaybillConfig } from './config.js'

export interface OpenedStore {
  readonly store: EventStore
  readonly blobs: Awaited<ReturnType<typeof openFileBlobStore>>
  /** The keys that seal personal data, from WAYBILL_SUBJECT_KEY_DIR (docs/personal-data.md#where-it-lives). */
  readonly keys: SubjectKeyStore
  close(): Promise<void>
}

export interface OpenStoreOptions {
  /**
   * False for commands that only read or change what exists (replay, verify, rebuild, keys
   * list/rotate/revoke): a mistyped WAYBILL_DATA_DIR must not meet a fresh empty store that then
   * "verifies" fine. Default true (serve, projector, keys create).
   */
  readonly create?: boolean
  /**
   * The SQLite writer: 'worker' (default) for the servers, where the main thread answers
   * requests while a thread of its own commits; 'inline' for a command that appends a few events
   * and exits (`waybill keys`), which would otherwise spend about a second starting that thread.
   */
  readonly writer?: 'worker' | 'inline'
}

// Refused to open: there is no embedded store where the configuration points.
class MissingStoreError extends Error {
  constructor(path: string) {
    super(`no event store at ${path}: check WAYBILL_DATA_DIR (nothing was created there)`)
    this.name = 'MissingStoreError'
  }
}

/**
 * The event store the configuration names: SQLite at `<dataDir>/events.sqlite` (the embedded
 * default) or EventStoreDB. Images go to `<dataDir>/blobs` either way.
 */
export async function openStore(config: Pick<WaybillConfig, 'dataDir' | 'subjectKeyDir' | 'store' | 'eventstoreConnectionString'>,
  options: OpenStoreOptions = {}): Promise<OpenedStore> {
  const sqlitePath = join(config.dataDir, 'events.sqlite')
  if (options.create === false && config.store === 'sqlite' && !existsSync(sqlitePath)) throw new MissingStoreError(sqlitePath)
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 })
  const blobs = await openFileBlobStore(join(config.dataDir, 'blobs'))
  // Keys are made where deliveries are taken (serve: a thread of its own, many keys per fsync).
  const keys = await openSqliteKeyStore({ dir: config.subjectKeyDir, writer: options.writer ?? 'worker' })
  const closeBoth = (store: EventStore) => async () => {
    await store.close()
    await keys.close()
  }
  if (config.store === 'eventstoredb') {
    // Loaded only here: the client takes about 0.4 s to load, which the embedded store never needs.
    const { openEventStoreDbStore } = await import('@waybill/event-store/eventstoredb')
    const store = await openEventStoreDbStore({ connectionString: config.eventstoreConnectionString ?? '' })
    return { store, blobs, keys, close: closeBoth(store) }
  }
  // The writer worker, not the store's inline default, unless told: in a server the main thread
  // parses and answers requests while the worker fsyncs, and a disk stall or another process
  // holding the lock (busy_timeout) cannot freeze the event loop, so load shedding can still answer 503.
  const store = await openSqliteEventStore({ path: sqlitePath, writer: options.writer ?? 'worker' })
  return { store, blobs, keys, close: closeBoth(store) }
}
