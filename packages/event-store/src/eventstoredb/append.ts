import type { EventStoreDBClient } from '@eventstore/db-client'
import { StoreUnavailableError, WrongExpectedVersionError } from '../errors.js'
import type { AppendResult, EventData, ExpectedRevision, RecordedEvent } from '../port.js'
import { chainEvents } from './chain.js'
import { toClientEvent } from './event-codec.js'
import { mapClientError } from './map-error.js'
import { fromClientPosition } from './position.js'
import { readStreamEvents } from './read.js'
import { toClientExpectedRevision, toRevisionNumber } from './revision.js'

/** How many times an `any`/`stream_exists` append re-reads the tail after losing a race. */
const MAX_PINNED_ATTEMPTS = 20
/** How far back an `any` append looks for its own ids, to recognise an exact retry. */
const RETRY_WINDOW = 64

/**
 * Appends with the hash chain intact. An exact revision or `no_stream` goes to the server as
 * is: the server's check makes reading the predecessor's hash and appending race-free, and its
 * idempotency answers an exact retry. `any` and `stream_exists` carry no such check, so a
 * concurrent append could slip between the read and the write and fork the chain; they are
 * therefore pinned to the revision just read and retried when another writer wins.
 */
export async function appendEvents(client: EventStoreDBClient, streamName: string, events: readonly EventData[], expected: ExpectedRevision): Promise<AppendResult> {
  if (events.length === 0) throw new RangeError('appendToStream needs at least one event')
  if (expected === 'no_stream') return appendPinned(client, streamName, events, 'no_stream', null, expected)
  if (typeof expected === 'number') {
    const [predecessor] = await readStreamEvents(client, streamName, { fromRevision: expected, maxCount: 1 })
    if (predecessor === undefined) {
      throw new WrongExpectedVersionError(streamName, expected, await lastRevision(client, streamName))
    }
    return appendPinned(client, streamName, events, expected, predecessor.hash, expected)
  }
  for (let attempt = 1; ; attempt += 1) {
    const tail = await readStreamEvents(client, streamName, { backwards: true, maxCount: RETRY_WINDOW })
    const last = tail[0]
    if (last === undefined && expected === 'stream_exists') throw new WrongExpectedVersionError(streamName, expected, 'no_stream')
    const retried = findRetry(streamName, expected, tail, events)
    if (retried !== undefined) return { nextExpectedRevision: retried.revision, position: retried.position }
    try {
      return await appendPinned(client, streamName, events, last?.revision ?? 'no_stream', last?.hash ?? null, expected)
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError) || attempt >= MAX_PINNED_ATTEMPTS) throw error
    }
  }
}

async function appendPinned(client: EventStoreDBClient, streamName: string, events: readonly EventData[], pinned: number | 'no_stream', prevHash: string | null, reported: ExpectedRevision): Promise<AppendResult> {
  const firstRevision = pinned === 'no_stream' ? 0 : pinned + 1
  const chained = chainEvents(streamName, firstRevision, prevHash, events)
  let result
  try {
    result = await client.appendToStream(streamName, chained.map(toClientEvent), { expectedRevision: toClientExpectedRevision(pinned) })
  } catch (error) {
    throw mapClientError(error, { streamName, expected: reported })
  }
  const nextExpectedRevision = toRevisionNumber(result.nextExpectedRevision)
  if (result.position !== undefined && events.length === 1) return { nextExpectedRevision, position: fromClientPosition(result.position) }
  // An idempotent re-append may be acknowledged without a position, and for a batch the
  // acknowledged position is the transaction's, which the port does not promise is the last
  // event's: the stored last event has the position the port means.
  const [stored] = await readStreamEvents(client, streamName, { fromRevision: nextExpectedRevision, maxCount: 1 })
  if (stored === undefined) throw new StoreUnavailableError(`stream ${streamName}: revision ${nextExpectedRevision} acknowledged but not readable`)
  return { nextExpectedRevision, position: stored.position }
}

async function lastRevision(client: EventStoreDBClient, streamName: string): Promise<number | 'no_stream'> {
  const [last] = await readStreamEvents(client, streamName, { backwards: true, maxCount: 1 })
  return last?.revision ?? 'no_stream'
}

/**
 * The last event of an earlier append of exactly these ids, in order, found in `tail` (newest
 * first). A batch that only partly matches is not a retry but a conflict.
 */
function findRetry(streamName: string, expected: ExpectedRevision, tail: readonly RecordedEvent[], events: readonly EventData[]): RecordedEvent | undefined {
  const oldestFirst = [...tail].reverse()
  const start = oldestFirst.findIndex((event) => event.id === events[0]?.id)
  if (start === -1) return undefined
  const stored = oldestFirst.slice(start, start + events.length)
  if (stored.length === events.length && stored.every((event, index) => event.id === events[index]?.id)) {
    return stored[stored.length - 1]
  }
  throw new WrongExpectedVersionError(streamName, expected, tail[0]?.revision ?? 'no_stream')
}
