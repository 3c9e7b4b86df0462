import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import {
  openEventStoreDbStore, openFileBlobStore, openSqliteEventStore, type EventStore,
} from '@waybill/event-store'
import type { WaybillConfig } from './config.js'

export interface OpenedStore {
  readonly store: EventStore
  readonly blobs: Awaited<ReturnType<typeof openFileBlobStore>>
  close(): Promise<void>
}

/**
 * The event store the configuration names: SQLite at `<dataDir>/events.sqlite` (the embedded
 * default) or EventStoreDB. Images go to `<dataDir>/blobs` either way.
 */
export async function openStore(config: Pick<WaybillConfig, 'dataDir' | 'store' | 'eventstoreConnectionString'>): Promise<OpenedStore> {
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 })
  const store = config.store === 'eventstoredb'
    ? await openEventStoreDbStore({ connectionString: config.eventstoreConnectionString ?? '' })
    // The writer worker, not the store's inline default: in a server the main thread parses and
    // answers requests while the worker fsyncs, and a disk stall or another process holding the
    // lock (busy_timeout) cannot freeze the event loop, so load shedding can still answer 503.
    : await openSqliteEventStore({ path: join(config.dataDir, 'events.sqlite'), writer: 'worker' })
  const blobs = await openFileBlobStore(join(config.dataDir, 'blobs'))
  return { store, blobs, close: () => store.close() }
}
