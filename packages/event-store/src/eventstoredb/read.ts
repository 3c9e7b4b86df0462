import { BACKWARDS, END, FORWARDS, START } from '@eventstore/db-client'
import type { EventStoreDBClient } from '@eventstore/db-client'
import type { Position, ReadAllOptions, ReadStreamOptions, RecordedEvent } from '../port.js'
import { inCategories, isSystemName } from './category-filter.js'
import { fromClientEvent } from './event-codec.js'
import { isStreamNotFound, mapClientError } from './map-error.js'
import { fromClientPosition, isAfter, toClientPosition } from './position.js'

/** Events fetched per round trip when reading `$all`; filtering may need several pages. */
const PAGE_SIZE = 1_000

/** Events of one stream in revision order; an empty array when the stream does not exist. */
export async function readStreamEvents(client: EventStoreDBClient, streamName: string, options: ReadStreamOptions & { backwards?: boolean } = {}): Promise<RecordedEvent[]> {
  if (options.maxCount !== undefined && options.maxCount <= 0) return []
  const read = client.readStream(streamName, {
    direction: options.backwards === true ? BACKWARDS : FORWARDS,
    fromRevision: options.fromRevision !== undefined ? BigInt(options.fromRevision) : options.backwards === true ? END : START,
    ...(options.maxCount !== undefined ? { maxCount: options.maxCount } : {}),
  })
  const events: RecordedEvent[] = []
  try {
    // The client reports a missing stream by throwing while the read is iterated.
    for await (const resolved of read) {
      if (resolved.event !== undefined) events.push(fromClientEvent(resolved.event))
    }
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
export async function readAllEvents(client: EventStoreDBClient, options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
  const wanted = options.maxCount ?? Number.POSITIVE_INFINITY
  const events: RecordedEvent[] = []
  let from: Position | null = options.after ?? null
  while (events.length < wanted) {
    const pageSize = Math.min(PAGE_SIZE, wanted - events.length + 1)
    let seen = 0
    let last: Position | null = null
    try {
      const read = client.readAll({ direction: FORWARDS, fromPosition: from === null ? START : toClientPosition(from), maxCount: pageSize })
      for await (const resolved of read) {
        seen += 1
        const recorded = resolved.event
        if (recorded === undefined) continue
        const position = fromClientPosition(recorded.position)
        last = position
        if (!isAfter(position, from) || events.length >= wanted) continue
        if (isSystemName(recorded.streamId) || isSystemName(recorded.type)) continue
        if (!inCategories(recorded.streamId, options.categories)) continue
        events.push(fromClientEvent(recorded))
      }
    } catch (error) {
      throw mapClientError(error)
    }
    if (seen < pageSize || last === null) break
    from = last
  }
  return events
}

/** Position of the last non-system event of the global log, or null when there is none. */
export async function readHeadPosition(client: EventStoreDBClient): Promise<Position | null> {
  let from: Position | typeof END = END
  for (;;) {
    let seen = 0
    let last: Position | null = null
    try {
      for await (const resolved of client.readAll({ direction: BACKWARDS, fromPosition: from === END ? END : toClientPosition(from), maxCount: PAGE_SIZE })) {
        seen += 1
        const recorded = resolved.event
        if (recorded === undefined) continue
        last = fromClientPosition(recorded.position)
        if (!isSystemName(recorded.streamId) && !isSystemName(recorded.type) && (from === END || isAfter(from, last))) return last
      }
    } catch (error) {
      throw mapClientError(error)
    }
    if (seen < PAGE_SIZE || last === null) return null
    from = last
  }
}
