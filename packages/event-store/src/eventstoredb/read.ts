import { BACKWARDS, END, FORWARDS, START } from '@eventstore/db-client'
import type { AllStreamResolvedEvent, ResolvedEvent } from '@eventstore/db-client'
import { DEFAULT_READ_ALL_MAX_COUNT } from '../port.js'
import type { Position, ReadAllOptions, ReadStreamOptions, RecordedEvent } from '../port.js'
import { inCategories, isSystemName } from './category-filter.js'
import { FROM_LEADER } from './context.js'
import type { EsdbContext } from './context.js'
import { readWithin } from './deadline.js'
import { fromClientEvent } from './event-codec.js'
import { isStreamNotFound, mapClientError } from './map-error.js'
import { fromClientPosition, isAfter, toClientPosition } from './position.js'

/** Events fetched per round trip when reading `$all`; filtering may need several pages. */
const PAGE_SIZE = 1_000

/** Events of one stream in revision order; an empty array when the stream does not exist. */
export async function readStreamEvents(context: EsdbContext, streamName: string, options: ReadStreamOptions & { backwards?: boolean } = {}): Promise<RecordedEvent[]> {
  if (options.maxCount !== undefined && options.maxCount <= 0) return []
  const events: RecordedEvent[] = []
  try {
    const read = context.client.readStream(streamName, {
      ...FROM_LEADER,
      direction: options.backwards === true ? BACKWARDS : FORWARDS,
      fromRevision: options.fromRevision !== undefined ? BigInt(options.fromRevision) : options.backwards === true ? END : START,
      ...(options.maxCount !== undefined ? { maxCount: options.maxCount } : {}),
    })
    // The client reports a missing stream by throwing while the read is iterated.
    await readWithin(read, context.readTimeoutMs, `a read of ${streamName}`, (resolved: ResolvedEvent) => {
      if (resolved.event !== undefined) events.push(fromClientEvent(resolved.event))
      return undefined
    })
  } catch (error) {
    if (isStreamNotFound(error)) return []
    throw mapClientError(error, { streamName })
  }
  return events
}

/**
 * One batch of the global log after `after`, without EventStoreDB's own (`$`) events. The 6.x
 * client cannot filter a read of `$all` on the server (only subscriptions can), so categories
 * are filtered here, page by page, until the batch is full or the log ends. A read from a
 * position includes the event at it, hence the strict `isAfter`.
 */
export async function readAllEvents(context: EsdbContext, options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
  const wanted = options.maxCount ?? DEFAULT_READ_ALL_MAX_COUNT
  const events: RecordedEvent[] = []
  await scanAll(context, options.after ?? null, wanted, (recorded) => {
    if (events.length >= wanted) return
    if (isSystemName(recorded.streamId) || isSystemName(recorded.type)) return
    if (inCategories(recorded.streamId, options.categories)) events.push(fromClientEvent(recorded))
  }, () => events.length >= wanted)
  return events
}

/** How many user events of `categories` lie after `after`, counted up to `limit` by reading them. */
export async function countEventsAfter(context: EsdbContext, after: Position | null, limit: number, categories?: readonly string[]): Promise<number> {
  let count = 0
  await scanAll(context, after, limit, (recorded) => {
    if (count >= limit) return
    if (isSystemName(recorded.streamId) || isSystemName(recorded.type) || !inCategories(recorded.streamId, categories)) return
    count += 1
  }, () => count >= limit)
  return count
}

type AllEvent = NonNullable<AllStreamResolvedEvent['event']>

/**
 * Pages forwards through `$all` strictly after `after` until `done()` or the end of the log. A
 * page read from a position starts with the event at it, which the page before has visited.
 */
async function scanAll(context: EsdbContext, after: Position | null, wanted: number, visit: (event: AllEvent, position: Position) => void, done: () => boolean): Promise<void> {
  let from = after
  while (!done()) {
    const pageSize = Math.min(PAGE_SIZE, wanted + 1)
    // Filled in by the callback, which TypeScript's narrowing does not follow: an object keeps it honest.
    const page: { seen: number; last: Position | null } = { seen: 0, last: null }
    const pageFrom = from
    try {
      const read = context.client.readAll({ ...FROM_LEADER, direction: FORWARDS, fromPosition: pageFrom === null ? START : toClientPosition(pageFrom), maxCount: pageSize })
      await readWithin(read, context.readTimeoutMs, 'a read of $all', (resolved: AllStreamResolvedEvent) => {
        page.seen += 1
        const recorded = resolved.event
        if (recorded === undefined) return undefined
        const position = fromClientPosition(recorded.position)
        page.last = position
        if (isAfter(position, pageFrom)) visit(recorded, position)
        return undefined
      })
    } catch (error) {
      throw mapClientError(error)
    }
    if (page.seen < pageSize || page.last === null) return
    from = page.last
  }
}

/** Position of the last non-system event of the global log, or null when there is none. */
export async function readHeadPosition(context: EsdbContext): Promise<Position | null> {
  let from: Position | typeof END = END
  for (;;) {
    const page: { seen: number; last: Position | null; found: Position | null } = { seen: 0, last: null, found: null }
    const before = from
    try {
      const read = context.client.readAll({ ...FROM_LEADER, direction: BACKWARDS, fromPosition: before === END ? END : toClientPosition(before), maxCount: PAGE_SIZE })
      await readWithin(read, context.readTimeoutMs, 'a read of the head of $all', (resolved: AllStreamResolvedEvent) => {
        page.seen += 1
        const recorded = resolved.event
        if (recorded === undefined) return undefined
        const position = fromClientPosition(recorded.position)
        page.last = position
        if (isSystemName(recorded.streamId) || isSystemName(recorded.type) || (before !== END && !isAfter(before, position))) return undefined
        page.found = position
        return 'stop'
      })
    } catch (error) {
      throw mapClientError(error)
    }
    if (page.found !== null) return page.found
    if (page.seen < PAGE_SIZE || page.last === null) return null
    from = page.last
  }
}
