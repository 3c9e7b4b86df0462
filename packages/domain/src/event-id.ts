import { canonicalJson } from './canonical-json.js'
import type { WireEvent } from './commands.js'
import { uuidV5 } from './uuid-v5.js'

/** The namespace of Waybill's event ids. Fixed for ever: changing it changes every id. */
export const WAYBILL_EVENT_NAMESPACE = 'a71d9392-fe3b-4e49-b66c-ff6da2a94708'

/**
 * The deterministic id of the event a delivery would append (docs/design.md#deterministic-event-ids-and-idempotency): UUID v5 over the
 * canonical JSON of `{account, event, data}`. `data` is the event's data as stored, its personal
 * fields sealed: sealing is deterministic for one key (docs/design.md#personal-data), so the same
 * delivery always gets the same id and any changed field a different one, while the id, like the
 * sealed fields, says nothing of a personal value to whoever lacks the key.
 */
export function eventIdFor(account: string, event: WireEvent, data: object): string {
  return uuidV5(canonicalJson({ account, data, event }), WAYBILL_EVENT_NAMESPACE)
}

/** The id of an order's erasure: one per order, so an erasure asked twice is appended once. */
export function eraseEventIdFor(account: string, orderId: string): string {
  return uuidV5(canonicalJson({ account, event: 'PersonalDataErased', order_id: orderId }), WAYBILL_EVENT_NAMESPACE)
}
