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
  const { event_date } = valid
  switch (valid.event) {
    case 'ORDER_ADD': {
      const { customer, location, address, ...open } = valid.payload
      const data: EventData<'OrderAdded'> = { ...open, event_date, personal: sealer.personal('OrderAdded', { customer, location, address }) }
      return { type: valid.event, data, eventId: eventIdFor(account, valid.event, data) }
    }
    case 'ORDER_UPDATE': {
      const { address, ...open } = valid.payload
      const data: EventData<'OrderUpdated'> = { ...open, event_date, personal: sealer.personal('OrderUpdated', { address }) }
      return { type: valid.event, data, eventId: eventIdFor(account, valid.event, data) }
    }
    case 'ORDER_COMPLETE': {
      const { address, recipient, pod, signature, ...open } = valid.payload
      const personal = sealer.personal('OrderCompleted', {
        address, recipient, pod: pod.sha256, ...(signature === undefined ? {} : { signature: signature.sha256 }),
      })
      const data: EventData<'OrderCompleted'> = {
        ...open,
        pod: sealer.image(pod),
        ...(signature === undefined ? {} : { signature: sealer.image(signature) }),
        event_date,
        personal,
      }
      return { type: valid.event, data, eventId: eventIdFor(account, valid.event, data) }
    }
    case 'ORDER_CANCELED': {
      const { reason, ...open } = valid.payload
      const data: EventData<'OrderCanceled'> = { ...open, event_date, personal: sealer.personal('OrderCanceled', { reason }) }
      return { type: valid.event, data, eventId: eventIdFor(account, valid.event, data) }
    }
  }
}
