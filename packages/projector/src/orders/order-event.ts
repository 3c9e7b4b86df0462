import { isOrderEventType, type OrderEvent } from '@waybill/domain'

/**
 * Whether a stored event is one of the domain's order events, and then typed as one. Only the
 * type is checked, not the payload: the decider is the only writer of order streams, so a known
 * type carries that type's payload (the same trust the domain's own `evolve` gives a stream).
 */
export function isOrderEvent<Stored extends { readonly type: string }>(event: Stored): event is Stored & OrderEvent {
  return isOrderEventType(event.type)
}
