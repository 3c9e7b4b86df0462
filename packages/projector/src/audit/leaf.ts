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
  return Buffer.from(leafText(event), 'utf8')
}

/** The leaf's text, whose UTF-8 is `leafBytes`. Its keys are written in canonical order (see canonicalJson). */
function leafText(event: LeafEvent): string {
  const eventDate = event.data.event_date
  const receivedAt = event.metadata.received_at
  return canonicalJson({
    data: event.data,
    event_date: typeof eventDate === 'string' ? eventDate : null,
    event_id: event.id,
    received_at: typeof receivedAt === 'string' ? receivedAt : null,
    revision: event.revision,
    stream: event.streamName,
    type: event.type,
  })
}

/** The leaf hash of an order event: SHA-256(0x00 ‖ leaf bytes). */
export function eventLeafHash(event: LeafEvent): Hash {
  return leafHash(leafText(event))
}
