import { canonicalJson } from './canonical-json.js'
import type { WireEvent } from './commands.js'
import { uuidV5 } from './uuid-v5.js'

/** The namespace of Waybill's event ids. Fixed for ever: changing it changes every id. */
export const WAYBILL_EVENT_NAMESPACE = 'a71d9392-fe3b-4e49-b66c-ff6da2a94708'

/**
 * The deterministic id of the event a delivery would append (docs/design.md#deterministic-event-ids-and-idempotency): UUID v5 over the
 * canonical JSON of `{account, event, data}`. `data` is the command data, which holds `order_id`,
 * `event_date` and every payload field, images as ImageRefs (sha256, media type, size), so the
 * same delivery always gets the same id and any changed field a different one.
 */
export function eventIdFor(account: string, event: WireEvent, data: object): string {
  return uuidV5(canonicalJson({ account, data, event }), WAYBILL_EVENT_NAMESPACE)
}
