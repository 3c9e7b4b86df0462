import { canonicalJson } from '@waybill/domain'
import { leafHash, type Hash } from '@waybill/merkle'

/** What a leaf commits to, from a stored order event (a RecordedEvent or a ProjectionEvent with `received_at`). */
export interface LeafEvent {
  readonly id: string
  readonly streamName: string
  readonly revision: number
  readonly type: string
  readonly data: Readonly<Record<string, unknown>>
  readonly metadata: Readonly<Record<string, unknown>>
}

/**
 * The leaf bytes of an order event (docs/audit.md#leaves): UTF-8 of the canonical JSON of its id,
 * stream, revision, type, data (images as their {sha256, media_type, bytes}), event date and
 * received time. The history route answers each of these fields, so a browser rebuilds the same
 * bytes from it.
 */
export function leafBytes(event: LeafEvent): Buffer {
  const eventDate = event.data.event_date
  const receivedAt = event.metadata.received_at
  return Buffer.from(canonicalJson({
    event_id: event.id,
    stream: event.streamName,
    revision: event.revision,
    type: event.type,
    data: event.data,
    event_date: typeof eventDate === 'string' ? eventDate : null,
    received_at: typeof receivedAt === 'string' ? receivedAt : null,
  }), 'utf8')
}

/** The leaf hash of an order event: SHA-256(0x00 ‖ leaf bytes). */
export function eventLeafHash(event: LeafEvent): Hash {
  return leafHash(leafBytes(event))
}
