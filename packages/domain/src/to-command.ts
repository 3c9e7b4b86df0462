import type { OrderCommand } from './commands.js'
import { eventIdFor } from './event-id.js'
import type { ImageRef } from './events.js'
import type { DecodedImage } from './image-data-url.js'
import type { ValidDelivery } from './valid-delivery.js'

/** The reference an event keeps of a stored image. */
export function imageRefOf(image: DecodedImage): ImageRef {
  return { sha256: image.sha256, media_type: image.media_type, bytes: image.bytes.length }
}

/** The command a valid delivery asks for, with the deterministic id of the event it would append. */
export function toCommand(account: string, valid: ValidDelivery): OrderCommand {
  const { event_date } = valid
  switch (valid.event) {
    case 'ORDER_ADD': {
      const data = { ...valid.payload, event_date }
      return { type: valid.event, data, eventId: eventIdFor(account, valid.event, data) }
    }
    case 'ORDER_UPDATE': {
      const data = { ...valid.payload, event_date }
      return { type: valid.event, data, eventId: eventIdFor(account, valid.event, data) }
    }
    case 'ORDER_COMPLETE': {
      const { pod, signature, ...fields } = valid.payload
      const data = {
        ...fields,
        pod: imageRefOf(pod),
        ...(signature === undefined ? {} : { signature: imageRefOf(signature) }),
        event_date,
      }
      return { type: valid.event, data, eventId: eventIdFor(account, valid.event, data) }
    }
    case 'ORDER_CANCELED': {
      const data = { ...valid.payload, event_date }
      return { type: valid.event, data, eventId: eventIdFor(account, valid.event, data) }
    }
  }
}
