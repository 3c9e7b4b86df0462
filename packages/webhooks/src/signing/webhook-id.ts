import { createHash } from 'node:crypto'

/**
 * The `webhook-id` of the message that carries one event to one endpoint: derived from both, so
 * it is the same on every attempt and every replay (the receiver's idempotency key), and two
 * endpoints of one receiver see two messages. `msg_` and 32 base64url characters of a SHA-256.
 */
export function webhookIdFor(endpointId: string, eventId: string): string {
  return `msg_${createHash('sha256').update(`waybill-webhook/v1\n${endpointId}\n${eventId}`).digest('base64url').slice(0, 32)}`
}
