import { BACKWARDS, END, EventStoreDBClient } from '@eventstore/db-client'
import { StoreUnavailableError } from '../errors.js'
import { connectionStringProblem } from './connection-string.js'
import { FROM_LEADER } from './context.js'
import { mapClientError } from './map-error.js'
import { serverVersionOf, serverVersionProblem } from './server-version.js'

/** How long opening may take, connection and first answer together, unless told otherwise. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000

/** The connection string with any password replaced, fit for error messages and logs. */
export function redactConnectionString(connectionString: string): string {
  // The password runs to the LAST '@' (it may hold '@' or '/' itself); host names cannot.
  return connectionString.replace(/^([a-z+]+:\/\/[^:@/]+):.*@(?=[^@]*$)/i, '$1:***@')
}

/**
 * Creates a client and proves the cluster answers by reading the head of `$all` (which also
 * proves the credentials may read the global log, as the projector must), then checks the
 * server's version (connecting to a server too old to run on is refused). The client connects
 * lazily and its discovery retries on its own schedule, so without the outer timer a dead
 * cluster would keep start-up waiting; on timeout or failure the client is disposed and the
 * error names the (redacted) connection string.
 */
export async function connectEventStoreDb(connectionString: string, timeoutMs = DEFAULT_CONNECT_TIMEOUT_MS): Promise<EventStoreDBClient> {
  const shown = redactConnectionString(connectionString)
  const refused = connectionStringProblem(connectionString)
  if (refused !== null) throw new Error(`EVENTSTORE_CONNECTION_STRING ${shown}: ${refused}`)
  let client: EventStoreDBClient
  try {
    client = EventStoreDBClient.connectionString(connectionString)
  } catch (error) {
    // The client's parse errors quote the whole string, password included: only the redacted
    // message goes on, never the client's error as a cause.
    const message = (error as Error).message.split(connectionString.trim()).join(shown)
    // eslint-disable-next-line preserve-caught-error -- the caught error holds the password (see above)
    throw new Error(`EVENTSTORE_CONNECTION_STRING ${shown} is not a valid connection string: ${message}`)
  }
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreUnavailableError(
      `EventStoreDB at ${shown} did not answer within ${timeoutMs} ms`)), timeoutMs)
  })
  let version: string
  try {
    version = await Promise.race([probe(client, timeoutMs), timeout])
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
  const tooOld = serverVersionProblem(version)
  if (tooOld !== null) {
    await client.dispose().catch(() => undefined)
    throw new Error(`cannot use EventStoreDB at ${shown}: ${tooOld}`)
  }
  return client
}

async function probe(client: EventStoreDBClient, deadline: number): Promise<string> {
  const head = client.readAll({ ...FROM_LEADER, direction: BACKWARDS, fromPosition: END, maxCount: 1, deadline })
  for await (const _ of head) break
  return serverVersionOf(client)
}
