import type { OrderCommand } from './commands.js'
import { eventIdFor } from './event-id.js'
import type { OrderEvent, SealedPersonal, StoredImageRef } from './events.js'
import type { DecodedImage } from './image-data-url.js'
import type { PersonalOf } from './personal.js'
import type { ValidDelivery } from './valid-delivery.js'

/**
 * What turns a delivery's personal fields into their stored form, with the key of the order's
 * subject (`@waybill/personal-data`): deterministic, so an exact retry makes the same event.
 */
export interface DeliverySealer {
  /** The event's personal part, sealed. */
  personal<Type extends keyof PersonalOf>(type: Type, fields: PersonalOf[Type]): SealedPersonal
  /** The stored reference of an image of this delivery, whose sealed blob the caller stores first. */
  image(image: DecodedImage): StoredImageRef
}

type EventData<Type extends Exclude<OrderEvent['type'], 'PersonalDataErased'>> = Extract<OrderEvent, { type: Type }>['data']

/**
 * The command a valid delivery asks for: the data of the event it would append, personal fields
 * sealed by `sealer`, and that event's deterministic id.
 */
export function toCommand(account: string, valid: ValidDelivery, sealer: DeliverySealer): OrderCommand {
  // Every object below is written with its keys in canonical (sorted) order: canonicalJson then
  // hands it straight to JSON.stringify (the event id here, the hash and the stored text in the
  // writer) instead of sorting it again each time.
  const { event_date } = valid
  switch (valid.event) {
    case 'ORDER_ADD': {
      const { order_id, customer, location, status, address, delivery_date } = valid.payload
      const personal = sealer.personal('OrderAdded', { address, customer, location })
      const data: EventData<'OrderAdded'> = { delivery_date, event_date, order_id, personal, status }
      return { type: valid.event, data, eventId: eventIdFor(account, valid.event, data) }
    }
    case 'ORDER_UPDATE': {
      const { order_id, status, address, delivery_date } = valid.payload
      const data: EventData<'OrderUpdated'> = { delivery_date, event_date, order_id, personal: sealer.personal('OrderUpdated', { address }), status }
      return { type: valid.event, data, eventId: eventIdFor(account, valid.event, data) }
    }
    case 'ORDER_COMPLETE': {
      const { order_id, address, delivery_date, recipient, pod, signature } = valid.payload
      const personal = sealer.personal('OrderCompleted', {
        address, pod: pod.sha256, recipient, ...(signature === undefined ? {} : { signature: signature.sha256 }),
      })
      const data: EventData<'OrderCompleted'> = {
        delivery_date,
        event_date,
        order_id,
        personal,
        pod: sealer.image(pod),
        ...(signature === undefined ? {} : { signature: sealer.image(signature) }),
      }
      return { type: valid.event, data, eventId: eventIdFor(account, valid.event, data) }
    }
    case 'ORDER_CANCELED': {
      const { order_id, reason } = valid.payload
      const data: EventData<'OrderCanceled'> = { event_date, order_id, personal: sealer.personal('OrderCanceled', { reason }) }
      return { type: valid.event, data, eventId: eventIdFor(account, valid.event, data) }
    }
  }
}
