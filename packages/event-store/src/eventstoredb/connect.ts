import { BACKWARDS, END, EventStoreDBClient } from '@eventstore/db-client'
import { StoreUnavailableError } from '../errors.js'
import { mapClientError } from './map-error.js'

/** How long opening may take, connection and first answer together, unless told otherwise. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000

/** The connection string with any password replaced, fit for error messages and logs. */
export function redactConnectionString(connectionString: string): string {
  // The password runs to the LAST '@' (it may hold '@' or '/' itself); host names cannot.
  return connectionString.replace(/^([a-z+]+:\/\/[^:@/]+):.*@(?=[^@]*$)/i, '$1:***@')
}

/**
 * Creates a client and proves the cluster answers by reading the head of `$all` (which also
 * proves the credentials may read the global log, as the projector must). The client connects
 * lazily and its discovery retries on its own schedule, so without the outer timer a dead
 * cluster would keep start-up waiting; on timeout or failure the client is disposed and the
 * error names the (redacted) connection string.
 */
export async function connectEventStoreDb(connectionString: string, timeoutMs = DEFAULT_CONNECT_TIMEOUT_MS): Promise<EventStoreDBClient> {
  const shown = redactConnectionString(connectionString)
  let client: EventStoreDBClient
  try {
    client = EventStoreDBClient.connectionString(connectionString)
  } catch (error) {
    throw new Error(`EVENTSTORE_CONNECTION_STRING ${shown} is not a valid connection string: ${(error as Error).message}`, { cause: error })
  }
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreUnavailableError(
      `EventStoreDB at ${shown} did not answer within ${timeoutMs} ms`)), timeoutMs)
  })
  try {
    await Promise.race([probe(client, timeoutMs), timeout])
    return client
  } catch (error) {
    await client.dispose().catch(() => undefined)
    if (error instanceof StoreUnavailableError && error.cause === undefined) throw error
    const mapped = mapClientError(error)
    const message = `cannot open EventStoreDB at ${shown}: ${mapped instanceof Error ? mapped.message : String(mapped)}`
    // Unreachable is worth retrying later; a refused login or a bad option is not.
    throw mapped instanceof StoreUnavailableError
      ? new StoreUnavailableError(message, { cause: error })
      : new Error(message, { cause: error })
  } finally {
    clearTimeout(timer)
  }
}

async function probe(client: EventStoreDBClient, deadline: number): Promise<void> {
  const head = client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1, deadline })
  for await (const _ of head) break
}
