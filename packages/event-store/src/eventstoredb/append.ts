import { setTimeout as sleep } from 'node:timers/promises'
import { StoreUnavailableError, WrongExpectedVersionError } from '../errors.js'
import { expectedRevisionHolds, reappendRevision, validateAppend } from '../append-rules.js'
import type { AppendResult, EventData, ExpectedRevision, RecordedEvent } from '../port.js'
import { chainEvents } from './chain.js'
import type { EsdbContext } from './context.js'
import { refuseIfDeleted } from './deleted-stream.js'
import { toClientEvent } from './event-codec.js'
import { mapClientError } from './map-error.js'
import { fromClientPosition } from './position.js'
import { readStreamEvents } from './read.js'
import { toClientExpectedRevision, toRevisionNumber } from './revision.js'

/** Rounds of read-check-append before a contended `any`/`stream_exists` append gives up. */
const MAX_ATTEMPTS = 20
/** Looks at the stream after an append that timed out, for the events it may have written. */
const RECOVERY_READS = [250, 500, 1_000, 2_000] as const

/**
 * Appends with the port's promises, which the server alone does not keep:
 * - The whole stream is read first (from the leader) and the append is pinned to the revision
 *   read, so that the hash chain cannot fork and the ids can be checked race-free: the server
 *   checks ids only when the expected revision is behind the stream, and with `any` only among
 *   recent events, so an id stored earlier would otherwise be written twice.
 * - An append that loses the race is decided again on a fresh read: either its own ids are now
 *   there (an identical append won: the original answer) or it is the conflict it seems.
 * - An append the server did not answer in time may still land, and an identical append that
 *   races one not yet replicated is dropped by the server without an answer. Before answering
 *   `StoreUnavailableError`, the stream is read again for the ids: found where they belong,
 *   the append succeeded.
 */
export async function appendEvents(context: EsdbContext, streamName: string, events: readonly EventData[], expected: ExpectedRevision): Promise<AppendResult> {
  validateAppend(streamName, events, expected)
  for (let attempt = 1; ; attempt += 1) {
    const stream = await readStreamEvents(context, streamName)
    if (stream.length === 0) await refuseIfDeleted(context, streamName)
    const stored = alreadyStored(streamName, expected, stream, events)
    if (stored !== undefined) return stored
    const last = stream.at(-1)
    if (!expectedRevisionHolds(expected, last?.revision ?? -1)) {
      throw new WrongExpectedVersionError(streamName, expected, last?.revision ?? 'no_stream')
    }
    try {
      return await appendPinned(context, streamName, events, last?.revision ?? 'no_stream', last?.hash ?? null, expected)
    } catch (error) {
      if (error instanceof WrongExpectedVersionError && attempt < MAX_ATTEMPTS) continue
      if (error instanceof StoreUnavailableError) return recoverOrThrow(context, streamName, events, expected, error)
      throw error
    }
  }
}

async function appendPinned(context: EsdbContext, streamName: string, events: readonly EventData[], pinned: number | 'no_stream', prevHash: string | null, reported: ExpectedRevision): Promise<AppendResult> {
  const firstRevision = pinned === 'no_stream' ? 0 : pinned + 1
  const chained = chainEvents(streamName, firstRevision, prevHash, events)
  let result
  try {
    result = await context.client.appendToStream(streamName, chained.map(toClientEvent), { expectedRevision: toClientExpectedRevision(pinned) })
  } catch (error) {
    throw mapClientError(error, { streamName, expected: reported })
  }
  // The connection string cannot turn throwOnAppendFailure off (connection-string.ts); this
  // keeps a conflict a conflict even if a client were built another way.
  if (!result.success) {
    throw new WrongExpectedVersionError(streamName, reported, result.nextExpectedRevision < 0n ? 'no_stream' : toRevisionNumber(result.nextExpectedRevision))
  }
  const nextExpectedRevision = toRevisionNumber(result.nextExpectedRevision)
  const expectedLast = firstRevision + events.length - 1
  if (nextExpectedRevision !== expectedLast) {
    throw new Error(`stream ${streamName}: EventStoreDB put the events at revision ${nextExpectedRevision}, not ${expectedLast}`)
  }
  if (result.position !== undefined && events.length === 1) return { nextExpectedRevision, position: fromClientPosition(result.position) }
  // For a batch the acknowledged position is the transaction's, which the port does not promise
  // is the last event's: the stored last event has the position the port means.
  const [stored] = await readStreamEvents(context, streamName, { fromRevision: nextExpectedRevision, maxCount: 1 })
  if (stored === undefined) throw new StoreUnavailableError(`stream ${streamName}: revision ${nextExpectedRevision} acknowledged but not readable`)
  return { nextExpectedRevision, position: stored.position }
}

/**
 * The original answer when the ids already stand in `stream`, consecutively, where `expected`
 * puts them; undefined when none of them does; a conflict when they stand anywhere else.
 */
function alreadyStored(streamName: string, expected: ExpectedRevision, stream: readonly RecordedEvent[], events: readonly EventData[]): AppendResult | undefined {
  const byId = new Map(stream.map((event) => [event.id, event]))
  const found = events.map((event) => byId.get(event.id))
  if (found.every((event) => event === undefined)) return undefined
  const first = found[0]
  const lastFound = found.at(-1)
  const inPlace = first !== undefined && first.revision === reappendRevision(expected, first.revision)
    && found.every((event, index) => event?.revision === first.revision + index)
  if (inPlace && lastFound !== undefined) return { nextExpectedRevision: lastFound.revision, position: lastFound.position }
  throw new WrongExpectedVersionError(streamName, expected, stream.at(-1)?.revision ?? 'no_stream')
}

async function recoverOrThrow(context: EsdbContext, streamName: string, events: readonly EventData[], expected: ExpectedRevision, failure: StoreUnavailableError): Promise<AppendResult> {
  for (const wait of RECOVERY_READS) {
    await sleep(wait)
    let stream: RecordedEvent[]
    try {
      stream = await readStreamEvents(context, streamName)
    } catch {
      continue
    }
    let stored: AppendResult | undefined
    try {
      stored = alreadyStored(streamName, expected, stream, events)
    } catch {
      throw failure
    }
    if (stored !== undefined) return stored
  }
  throw failure
}
