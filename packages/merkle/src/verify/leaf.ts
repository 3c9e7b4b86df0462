import { canonicalJson } from '@waybill/domain/canonical-json'
import { utf8 } from './bytes.js'

/**
 * What an order event's leaf commits to (docs/audit.md#leaves): the members of its entry in the
 * order history (`GET /v1/orders/{order_id}/events`) of these names, so that a browser rebuilds
 * the leaf from the history alone. The projector fills them from the stored event.
 */
export interface LeafFields {
  readonly event_id: string
  readonly stream: string
  readonly revision: number
  readonly type: string
  /** The event's data as stored; images as their {sha256, media_type, bytes}. */
  readonly data: Readonly<Record<string, unknown>>
  readonly event_date: string | null
  readonly received_at: string | null
}

/**
 * The leaf's text: the canonical JSON of exactly the seven fields (any other member of `event`,
 * such as the history's hash or state, is left out). Its UTF-8 is the leaf's bytes.
 */
export function leafText(event: LeafFields): string {
  // Written with its keys in canonical order, so canonicalJson takes its JSON.stringify path.
  return canonicalJson({
    data: event.data,
    event_date: event.event_date,
    event_id: event.event_id,
    received_at: event.received_at,
    revision: event.revision,
    stream: event.stream,
    type: event.type,
  })
}

/** The leaf's bytes: the UTF-8 of `leafText`. */
export function leafBytes(event: LeafFields): Uint8Array<ArrayBuffer> {
  return utf8(leafText(event))
}
