import { parseOrderStreamName, upcastOrderEvent, type OpenedOrderEvent } from '@waybill/domain'
import type { RecordedEvent } from '@waybill/event-store'
import { openOrderEvent, type SubjectKeyStore } from '@waybill/personal-data'
import type { MessageEnvelope } from './webhook-message.js'

/** A stored event a message is made from, as `readStream` answers it. */
export type MessageSource = Pick<RecordedEvent, 'streamName' | 'id' | 'type' | 'data' | 'metadata' | 'revision'>

/**
 * A stored order event as `webhookMessage` takes it: where it sits in the log, and the event in
 * today's shape (read as every fold reads it, `upcastOrderEvent`, so an older schema version is
 * sent as the current one), opened with the order's key. Called each time a message is sent,
 * never when it is queued: a message is made from the event as stored, and the key as kept, at
 * that time, so one sent after an erasure carries its personal fields null.
 * Throws for an event that is not an order event of a type this Waybill knows.
 */
export function readMessageEvent(stored: MessageSource, keys: Pick<SubjectKeyStore, 'get'>): { readonly envelope: MessageEnvelope; readonly event: OpenedOrderEvent } {
  const order = parseOrderStreamName(stored.streamName)
  const current = upcastOrderEvent(stored)
  const event = order === null || current === null ? null : openOrderEvent(stored.streamName, current, keys.get(order.account, order.orderId))
  if (order === null || event === null) throw new TypeError(`event ${stored.id} of ${stored.streamName} is not an order event this Waybill knows (${stored.type})`)
  const receivedAt = stored.metadata['received_at']
  return {
    envelope: { account: order.account, orderId: order.orderId, eventId: stored.id, revision: stored.revision, receivedAt: typeof receivedAt === 'string' ? receivedAt : null },
    event,
  }
}
