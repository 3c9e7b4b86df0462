import { leafHash, leafText, type Hash, type LeafFields } from '@waybill/merkle'

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
 * The leaf's fields (docs/audit.md#leaves) where a stored event keeps them: the event date in its
 * data, the received time in its metadata (null when either is not a string). The format itself,
 * which the browser rebuilds from the history, is `@waybill/merkle`'s `leafText`.
 */
function leafFields(event: LeafEvent): LeafFields {
  const eventDate = event.data.event_date
  const receivedAt = event.metadata.received_at
  return {
    event_id: event.id,
    stream: event.streamName,
    revision: event.revision,
    type: event.type,
    data: event.data,
    event_date: typeof eventDate === 'string' ? eventDate : null,
    received_at: typeof receivedAt === 'string' ? receivedAt : null,
  }
}

/** The leaf bytes of an order event: the UTF-8 of its leaf text. */
export function leafBytes(event: LeafEvent): Buffer {
  return Buffer.from(leafText(leafFields(event)), 'utf8')
}

/** The leaf hash of an order event: SHA-256(0x00 ‖ leaf bytes), hashed from the text without a copy of its bytes. */
export function eventLeafHash(event: LeafEvent): Hash {
  return leafHash(leafText(leafFields(event)))
}
