import type { ImageRef, OpenedOrderEvent, OrderEventType } from '@waybill/domain'

/** The `type` of each message, by the stored event it carries. */
export const MESSAGE_TYPES: Readonly<Record<OrderEventType, string>> = {
  OrderAdded: 'order.added',
  OrderUpdated: 'order.updated',
  OrderCompleted: 'order.completed',
  OrderCanceled: 'order.canceled',
  // Every endpoint of the account gets it, whatever its event filter: a receiver erases its copies.
  PersonalDataErased: 'order.personal_data_erased',
}

/** An image in a message: a link to the read API, never the bytes, and what checks them. */
export interface ImageLink extends ImageRef {
  /** The read route that serves the bytes, relative to the API's base URL (a key that reads the order fetches it). */
  readonly url: string
}

/** The body of one webhook request (docs/contract.md#webhooks). */
export interface WebhookMessage {
  /** `order.added`, `order.updated`, `order.completed`, `order.canceled`. */
  readonly type: string
  /** When Waybill accepted the event (its `received_at`): the same on every attempt. */
  readonly timestamp: string
  readonly data: Readonly<Record<string, unknown>> & {
    readonly account: string
    readonly order_id: string
    readonly event_type: OrderEventType
    readonly event_id: string
    readonly revision: number
  }
}

/** Where an event sits in the log: what a message says of it besides the event's own fields. */
export interface MessageEnvelope {
  readonly account: string
  readonly orderId: string
  readonly eventId: string
  readonly revision: number
  /** When Waybill accepted it; null for an event stored without it (then its `event_date` dates the message). */
  readonly receivedAt: string | null
}

/**
 * The message that carries one order event to the operator's receivers: the one place where an
 * event becomes what leaves Waybill (docs/design.md#webhooks). It takes the event's type and
 * fields as they are given (`readMessageEvent` reads them from the stored event each time a
 * message is sent), so what it is given of the personal fields is exactly what every receiver
 * gets, on every attempt and replay. Images become links to the read API.
 */
export function webhookMessage(envelope: MessageEnvelope, event: OpenedOrderEvent): WebhookMessage {
  return {
    type: MESSAGE_TYPES[event.type],
    timestamp: envelope.receivedAt ?? ('event_date' in event.data ? event.data.event_date : event.data.erased_at),
    data: {
      account: envelope.account,
      order_id: envelope.orderId,
      event_type: event.type,
      event_id: envelope.eventId,
      revision: envelope.revision,
      ...fieldsOf(event, envelope.orderId),
    },
  }
}

/** The event's own fields, images as links (the order_id is the stream's, already above). */
function fieldsOf(event: OpenedOrderEvent, orderId: string): Record<string, unknown> {
  if (event.type !== 'OrderCompleted') {
    const { order_id: _orderId, ...fields } = event.data
    return fields
  }
  const { order_id: _orderId, pod, signature, ...fields } = event.data
  const base = `/v1/orders/${encodeURIComponent(orderId)}`
  return {
    ...fields,
    pod: pod === null ? null : link(pod, `${base}/pod`),
    ...(signature === undefined ? {} : { signature: signature === null ? null : link(signature, `${base}/signature`) }),
  }
}

function link(image: ImageRef, url: string): ImageLink {
  return { url, sha256: image.sha256, media_type: image.media_type, bytes: image.bytes }
}
