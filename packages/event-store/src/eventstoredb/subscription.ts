import { END, START, excludeSystemEvents, streamNameFilter } from '@eventstore/db-client'
import type { EventStoreDBClient } from '@eventstore/db-client'
import type { RecordedEvent } from '../port.js'
import { categoryPrefixes, inCategories, isSystemName } from './category-filter.js'
import { fromClientEvent } from './event-codec.js'
import { mapClientError } from './map-error.js'
import { fromClientPosition, isAfter, toClientPosition } from './position.js'
import type { LiveSubscriptionRequest } from './subscribe-with-retry.js'

/**
 * One catch-up subscription to `$all`, filtered on the server by stream-name prefix (or just
 * without system events), checked exactly here. It ends quietly on abort and throws the
 * mapped error when the server drops it; re-subscribing is `subscribeAllWithRetry`'s job.
 */
export async function* openLiveSubscription(client: EventStoreDBClient, request: LiveSubscriptionRequest): AsyncGenerator<RecordedEvent> {
  const { after, categories, signal } = request
  if (signal.aborted) return
  const subscription = client.subscribeToAll({
    fromPosition: after === null ? START : after === 'end' ? END : toClientPosition(after),
    filter: categories === undefined ? excludeSystemEvents() : streamNameFilter({ prefixes: categoryPrefixes(categories) }),
  })
  const stop = (): void => { subscription.unsubscribe().catch(() => undefined) }
  signal.addEventListener('abort', stop, { once: true })
  try {
    for await (const resolved of subscription) {
      const recorded = resolved.event
      if (recorded === undefined) continue
      if (isSystemName(recorded.streamId) || isSystemName(recorded.type)) continue
      if (!inCategories(recorded.streamId, categories)) continue
      // A subscription from a position should start after it; this makes sure of it.
      if (after !== 'end' && !isAfter(fromClientPosition(recorded.position), after)) continue
      yield fromClientEvent(recorded)
    }
  } catch (error) {
    // Aborting during the loop ends it with an error; TypeScript keeps the narrowing of the check
    // at the top across the awaits (microsoft/TypeScript#9998).
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- see above
    if (signal.aborted) return
    throw mapClientError(error)
  } finally {
    signal.removeEventListener('abort', stop)
    await subscription.unsubscribe().catch(() => undefined)
  }
}
