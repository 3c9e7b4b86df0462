import type { RecordedEvent } from '@waybill/event-store'

/** One page of an order's events: those after `after` (a revision), at most `limit`, and where the next starts. */
export interface EventPage {
  readonly events: readonly RecordedEvent[]
  /** The index in the whole stream of the page's first event. */
  readonly from: number
  /** The revision to ask the next page after, as text; null on the last page. */
  readonly nextCursor: string | null
}

/**
 * A page of a stream read whole (docs/contract.md#limits bounds an order's events, so whole is
 * small): the history and the proofs answer a page at a time, so that no answer about one order
 * is large, whatever the order.
 */
export function eventPage(stream: readonly RecordedEvent[], after: number | undefined, limit: number): EventPage {
  const from = after === undefined ? 0 : stream.findIndex((event) => event.revision > after)
  const start = from === -1 ? stream.length : from
  const events = stream.slice(start, start + limit)
  const last = events.at(-1)
  return { events, from: start, nextCursor: last !== undefined && start + events.length < stream.length ? String(last.revision) : null }
}
