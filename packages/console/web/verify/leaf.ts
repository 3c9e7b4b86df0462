import { canonicalJson } from '@waybill/domain/canonical-json'
import { utf8 } from './bytes.js'
import type { HistoryEvent } from '../wire.js'

/** The history fields a leaf commits to (docs/audit.md#leaves). */
export type LeafFields = Pick<HistoryEvent, 'type' | 'data' | 'event_date' | 'received_at' | 'revision'> & {
  readonly event_id: string
  readonly stream: string
}

/**
 * An event's leaf bytes: the UTF-8 of the canonical JSON of its id, stream, revision, type, data,
 * event date and received time, recomputed here from what the history shows, so that a history
 * that differs from what the log recorded cannot pass.
 */
export function leafBytes(event: LeafFields): Uint8Array<ArrayBuffer> {
  return utf8(canonicalJson({
    event_id: event.event_id,
    stream: event.stream,
    revision: event.revision,
    type: event.type,
    data: event.data,
    event_date: event.event_date,
    received_at: event.received_at,
  }))
}
