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

/** The query options @eventstore/db-client 6 knows, compared as it does: case, '-' and '_' aside. */
const CLIENT_OPTIONS = new Set([
  'connectionname', 'defaultdeadline', 'discoveryinterval', 'dnsdiscover', 'gossiptimeout', 'keepaliveinterval',
  'keepalivetimeout', 'maxdiscoverattempts', 'nodepreference', 'throwonappendfailure', 'tls', 'tlscafile',
  'tlsverifycert', 'usercertfile', 'userkeyfile',
])
const flat = (key: string): string => key.trim().toLowerCase().replace(/[_-]/g, '')

/**
 * What the client would only warn about on the console, printing the whole connection string
 * with its password: an option it does not know (ignored), or tlsVerifyCert=false (unsupported,
 * ignored). Refused here instead, with the string redacted; null when there is none.
 */
function refusedOption(connectionString: string): string | null {
  const query = connectionString.indexOf('?')
  if (query < 0) return null
  for (const pair of connectionString.slice(query + 1).split('&')) {
    const [key = '', value = ''] = pair.split('=')
    if (key.trim() === '') continue
    if (!CLIENT_OPTIONS.has(flat(key))) return `unknown option "${key}" (known: ${[...CLIENT_OPTIONS].join(', ')}, in any case)`
    if (flat(key) === 'tlsverifycert' && value.trim() === 'false') {
      return 'tlsVerifyCert=false is not supported by the client; trust the server\'s CA with tlsCAFile=<path> instead'
    }
  }
  return null
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
  const refused = refusedOption(connectionString)
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
