import { parseOrderStreamName, upcastOrderEvent, type ImageRef, type OrderEvent, type OrderEventType } from '@waybill/domain'
import type { RecordedEvent } from '@waybill/event-store'

/** The `type` of each message, by the stored event it carries. */
export const MESSAGE_TYPES: Readonly<Record<OrderEventType, string>> = {
  OrderAdded: 'order.added',
  OrderUpdated: 'order.updated',
  OrderCompleted: 'order.completed',
  OrderCanceled: 'order.canceled',
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

/** The event a message is made from: a stored event of an order stream, as `readStream` answers it. */
export type MessageSource = Pick<RecordedEvent, 'streamName' | 'id' | 'type' | 'data' | 'metadata' | 'revision'>

/**
 * The message that carries one stored order event to the operator's receivers: the one place
 * where an event becomes what leaves Waybill (docs/design.md#webhooks). It reads the event as
 * every fold does (`upcastOrderEvent`), so an older schema version is sent in today's shape; the
 * account and order come from the stream name; images become links to the read API. Every
 * delivery, retry and replay is made here from the event as stored at the time of sending, so
 * what this function makes of personal fields is what every receiver gets.
 * Throws for an event that is not an order event of a type this Waybill knows.
 */
export function webhookMessage(stored: MessageSource): WebhookMessage {
  const order = parseOrderStreamName(stored.streamName)
  const event = upcastOrderEvent(stored)
  if (order === null || event === null) throw new TypeError(`event ${stored.id} of ${stored.streamName} is not an order event this Waybill knows (${stored.type})`)
  const receivedAt = stored.metadata['received_at']
  return {
    type: MESSAGE_TYPES[event.type],
    timestamp: typeof receivedAt === 'string' ? receivedAt : event.data.event_date,
    data: {
      account: order.account,
      order_id: order.orderId,
      event_type: event.type,
      event_id: stored.id,
      revision: stored.revision,
      ...fieldsOf(event, order.orderId),
    },
  }
}

/** The event's own fields, images as links (the order_id is the stream's, already above). */
function fieldsOf(event: OrderEvent, orderId: string): Record<string, unknown> {
  if (event.type !== 'OrderCompleted') {
    const { order_id: _orderId, ...fields } = event.data
    return fields
  }
  const { order_id: _orderId, pod, signature, ...fields } = event.data
  const base = `/v1/orders/${encodeURIComponent(orderId)}`
  return {
    ...fields,
    pod: link(pod, `${base}/pod`),
    ...(signature === undefined ? {} : { signature: link(signature, `${base}/signature`) }),
  }
}

function link(image: ImageRef, url: string): ImageLink {
  return { url, sha256: image.sha256, media_type: image.media_type, bytes: image.bytes }
}
