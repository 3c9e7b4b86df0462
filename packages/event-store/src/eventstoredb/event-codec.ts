import { jsonEvent } from '@eventstore/db-client'
import type { EventData as ClientEventData, AllStreamRecordedEvent, RecordedEvent as ClientRecordedEvent } from '@eventstore/db-client'
import type { EventData, RecordedEvent } from '../port.js'
import { fromClientPosition } from './position.js'
import { toRevisionNumber } from './revision.js'

/**
 * Metadata key under which an event's own hash is stored. The hash is computed over the event
 * with its metadata (prev_hash included) but without this key, so it is stripped again on read.
 */
export const HASH_KEY = 'event_hash'

/** What servers before 22.6 put where a stream read's position belongs: 2^64 − 1. */
const NO_POSITION = 2n ** 64n - 1n

/** An event ready to append: its place in the chain (`prev_hash`) and its own hash are known. */
export interface ChainedEvent {
  readonly event: EventData
  readonly prevHash: string | null
  readonly hash: string
}

/**
 * A JSON event for the client. The caller's deterministic id is passed through as the event id,
 * so that EventStoreDB's own idempotency recognises an exact retry.
 */
export function toClientEvent({ event, prevHash, hash }: ChainedEvent): ClientEventData {
  return jsonEvent({
    id: event.id,
    type: event.type,
    data: { ...event.data },
    metadata: { ...event.metadata, prev_hash: prevHash, [HASH_KEY]: hash },
  })
}

/** The metadata an event is hashed with: the caller's metadata plus `prev_hash`. */
export function chainMetadata(event: EventData, prevHash: string | null): RecordedEvent['metadata'] {
  const { [HASH_KEY]: _ignored, ...rest } = event.metadata ?? {}
  return { ...rest, prev_hash: prevHash }
}

/** A stored event in the port's terms; throws on events Waybill did not write. */
export function fromClientEvent(recorded: ClientRecordedEvent | AllStreamRecordedEvent): RecordedEvent {
  const where = `${recorded.streamId}@${recorded.revision}`
  if (!recorded.isJson) throw new TypeError(`event ${where} is not JSON: not written by Waybill`)
  const data = recorded.data
  const metadata = recorded.metadata
  if (!isRecord(data)) throw new TypeError(`event ${where} has data that is not a JSON object`)
  if (!isRecord(metadata) || typeof metadata[HASH_KEY] !== 'string' || !('prev_hash' in metadata)) {
    throw new TypeError(`event ${where} has no hash chain metadata: not written by Waybill`)
  }
  const { [HASH_KEY]: hash, prev_hash: prevHash, ...rest } = metadata
  if (prevHash !== null && typeof prevHash !== 'string') throw new TypeError(`event ${where} has a malformed prev_hash`)
  // Servers before 22.6 answer stream reads with 2^64−1 for the position, which the client
  // passes on as if it were one. Such servers are refused at connect (server-version.ts); this
  // keeps a position that means "none" from ever reaching a checkpoint or an append result.
  if (recorded.position === undefined || recorded.position.commit === NO_POSITION || recorded.position.prepare === NO_POSITION) {
    throw new TypeError(`event ${where} came without a position (EventStoreDB older than 22.6?)`)
  }
  const position = fromClientPosition(recorded.position)
  return {
    streamName: recorded.streamId,
    id: recorded.id,
    type: recorded.type,
    data,
    metadata: { ...rest, prev_hash: prevHash },
    revision: toRevisionNumber(recorded.revision),
    position,
    hash,
    createdAt: recorded.created,
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array)
}
