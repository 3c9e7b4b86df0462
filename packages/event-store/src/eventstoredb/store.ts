import type { EventStoreDBClient } from '@eventstore/db-client'
import { StoreUnavailableError } from '../errors.js'
import type { EventStore, ReadAllOptions, StoreInfo } from '../port.js'
import { appendEvents } from './append.js'
import { appendNotifier } from './append-notifier.js'
import { connectEventStoreDb, redactConnectionString } from './connect.js'
import type { EsdbContext } from './context.js'
import { DEFAULT_READ_TIMEOUT_MS } from './deadline.js'
import { countEventsAfter, readAllEvents, readHeadPosition, readStreamEvents } from './read.js'
import { serverVersionOf } from './server-version.js'
import { openLiveSubscription } from './subscription.js'
import type { LiveSource } from './subscribe-with-retry.js'

/** Options of `openEventStoreDbStore`. */
export interface EventStoreDbOptions {
  /** `esdb://…` or `esdb+discover://…`, as in EVENTSTORE_CONNECTION_STRING. */
  readonly connectionString: string
  /** How long connecting and the first answer may take before opening fails; default 10 s. */
  readonly connectTimeoutMs?: number
  /** How long one read may take before it fails with StoreUnavailableError; default 10 s. */
  readonly readTimeoutMs?: number
}

/**
 * The EventStore port on EventStoreDB with change notification (`onAppended`, from a live
 * subscription to the end of the global log), lag counting and server information, plus that
 * subscription itself (`subscribeAll`, for `subscribeAllWithRetry`).
 */
export interface EventStoreDbStore extends EventStore, LiveSource {
  onAppended(listener: () => void): () => void
  countAfter: NonNullable<EventStore['countAfter']>
  serverInfo(): Promise<StoreInfo>
}

/**
 * Opens the EventStoreDB adapter. Resolves once the cluster has answered and its version is one
 * Waybill can run on; rejects within `connectTimeoutMs` with a message naming the
 * (password-redacted) connection string when it is malformed, unreachable, too old or refuses
 * the credentials.
 */
export async function openEventStoreDbStore(options: EventStoreDbOptions): Promise<EventStoreDbStore> {
  const client = await connectEventStoreDb(options.connectionString, options.connectTimeoutMs)
  return eventStoreOn(client, {
    readTimeoutMs: options.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS,
    location: redactConnectionString(options.connectionString),
  })
}

/**
 * The adapter over a connected client (tests hand it a scripted client). `close()` keeps the
 * port's promise: the client's own dispose would cut appends in flight with an error the port
 * does not know, so calls are counted, close waits for them, and any call after close fails
 * with StoreUnavailableError before it reaches the client.
 */
export function eventStoreOn(client: EventStoreDBClient, options: { readonly readTimeoutMs: number; readonly location: string }): EventStoreDbStore {
  const context: EsdbContext = { client, readTimeoutMs: options.readTimeoutMs }
  const inFlight = new Set<Promise<unknown>>()
  let closing: Promise<void> | null = null
  const guard = <T>(call: () => Promise<T>): Promise<T> => {
    if (closing !== null) return Promise.reject(new StoreUnavailableError('the event store is closed'))
    const running = call()
    inFlight.add(running)
    const forget = (): void => { inFlight.delete(running) }
    running.then(forget, forget)
    return running
  }
  const subscribeAll: LiveSource['subscribeAll'] = (request) => {
    if (closing !== null) throw new StoreUnavailableError('the event store is closed')
    return openLiveSubscription(client, request)
  }
  const notifier = appendNotifier({ subscribeAll })
  return {
    appendToStream: (streamName, events, append) => guard(() => appendEvents(context, streamName, events, append?.expectedRevision ?? 'any')),
    readStream: (streamName, read) => guard(() => readStreamEvents(context, streamName, read)),
    readAll: (read?: ReadAllOptions) => guard(() => readAllEvents(context, read)),
    headPosition: () => guard(() => readHeadPosition(context)),
    countAfter: (count) => guard(() => countEventsAfter(context, count.after ?? null, count.limit, count.categories)),
    serverInfo: () => guard(async () => ({ kind: 'eventstoredb', version: `EventStoreDB ${await serverVersionOf(client)}`, location: options.location })),
    subscribeAll,
    onAppended: (listener) => notifier.onAppended(listener),
    close() {
      closing ??= (async () => {
        notifier.stop()
        await Promise.allSettled([...inFlight])
        await client.dispose()
      })()
      return closing
    },
  }
}
