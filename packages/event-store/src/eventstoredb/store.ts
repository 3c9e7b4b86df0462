import type { EventStoreDBClient } from '@eventstore/db-client'
import type { EventStore, ReadAllOptions } from '../port.js'
import { appendEvents } from './append.js'
import { appendNotifier } from './append-notifier.js'
import { connectEventStoreDb } from './connect.js'
import { readAllEvents, readHeadPosition, readStreamEvents } from './read.js'
import { openLiveSubscription } from './subscription.js'
import type { LiveSource } from './subscribe-with-retry.js'

/** Options of `openEventStoreDbStore`. */
export interface EventStoreDbOptions {
  /** `esdb://…` or `esdb+discover://…`, as in EVENTSTORE_CONNECTION_STRING. */
  readonly connectionString: string
  /** How long connecting and the first answer may take before opening fails; default 10 s. */
  readonly connectTimeoutMs?: number
}

/**
 * The EventStore port on EventStoreDB with change notification (`onAppended`, from a live
 * subscription to the end of the global log), plus that subscription itself (`subscribeAll`,
 * for `subscribeAllWithRetry`).
 */
export interface EventStoreDbStore extends EventStore, LiveSource {
  onAppended(listener: () => void): () => void
}

/**
 * Opens the EventStoreDB adapter. Resolves once the cluster has answered; rejects within
 * `connectTimeoutMs` with a message naming the (password-redacted) connection string when it
 * is malformed, unreachable or refuses the credentials.
 */
export async function openEventStoreDbStore(options: EventStoreDbOptions): Promise<EventStoreDbStore> {
  const client = await connectEventStoreDb(options.connectionString, options.connectTimeoutMs)
  return eventStoreOn(client)
}

function eventStoreOn(client: EventStoreDBClient): EventStoreDbStore {
  let closed = false
  const subscribeAll: LiveSource['subscribeAll'] = (request) => openLiveSubscription(client, request)
  const notifier = appendNotifier({ subscribeAll })
  return {
    appendToStream: (streamName, events, options) => appendEvents(client, streamName, events, options?.expectedRevision ?? 'any'),
    readStream: (streamName, options) => readStreamEvents(client, streamName, options),
    readAll: (options?: ReadAllOptions) => readAllEvents(client, options),
    headPosition: () => readHeadPosition(client),
    subscribeAll,
    onAppended: (listener) => notifier.onAppended(listener),
    async close() {
      if (closed) return
      closed = true
      notifier.stop()
      await client.dispose()
    },
  }
}
