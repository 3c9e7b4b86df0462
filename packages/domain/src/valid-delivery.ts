import type { WireEvent } from './commands.js'
import type { OrderAddedFields, OrderCanceledFields, OrderCompletedFields, OrderUpdatedFields } from './events.js'
import type { DecodedImage } from './image-data-url.js'

export type OrderAddPayload = Omit<OrderAddedFields, 'event_date'>
export type OrderUpdatePayload = Omit<OrderUpdatedFields, 'event_date'>
export type OrderCancelPayload = Omit<OrderCanceledFields, 'event_date'>
/** The images arrive decoded; `toCommand` seals them and keeps their blobs' names. */
export type OrderCompletePayload = Omit<OrderCompletedFields, 'event_date' | 'pod' | 'signature'> & {
  readonly pod: DecodedImage
  readonly signature?: DecodedImage
}

interface Valid<Event extends WireEvent, Payload> {
  readonly event: Event
  readonly event_date: string
  /** Only the fields of this event (docs/contract.md#event-payloads), with the values as sent. */
  readonly payload: Payload
}

/** A delivery that passed every wire rule (docs/contract.md#validation-rules), typed by its event. */
export type ValidDelivery =
  | Valid<'ORDER_ADD', OrderAddPayload>
  | Valid<'ORDER_UPDATE', OrderUpdatePayload>
  | Valid<'ORDER_COMPLETE', OrderCompletePayload>
  | Valid<'ORDER_CANCELED', OrderCancelPayload>

/** The images a delivery carries (pod, then signature if sent), to be stored before the event. */
export function deliveryImages(valid: ValidDelivery): DecodedImage[] {
  if (valid.event !== 'ORDER_COMPLETE') return []
  const { pod, signature } = valid.payload
  return signature === undefined ? [pod] : [pod, signature]
}
