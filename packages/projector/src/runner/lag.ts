import type { Position } from '@waybill/event-store'
import type { EventSource } from './event-source.js'

/**
 * Lag is counted in events, up to this many. On EventStoreDB positions are byte offsets in the
 * transaction file, so their difference is no count of anything; counting there means reading,
 * hence the bound and the once-a-second refresh.
 */
export const LAG_COUNT_LIMIT = 10_000
const LAG_REFRESH_MS = 1_000

export interface Lag {
  readonly head: Position | null
  readonly events: number
}

/**
 * Counts a projection's lag after a batch: when it caught up (next to nothing to count), or at
 * most once a second while it is behind (counting then means reading up to `LAG_COUNT_LIMIT`
 * events). Answers undefined when it did not count this time.
 */
export function lagCounter(source: Pick<EventSource, 'headPosition' | 'countAfter'>, now: () => number = Date.now) {
  let countedAt = -Infinity
  return async (checkpoint: Position | null, caughtUp: boolean): Promise<Lag | undefined> => {
    if (!caughtUp && now() - countedAt < LAG_REFRESH_MS) return undefined
    countedAt = now()
    const head = await source.headPosition()
    return { head, events: await source.countAfter(checkpoint, LAG_COUNT_LIMIT) }
  }
}
