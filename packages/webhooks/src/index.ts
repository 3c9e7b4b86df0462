/**
 * Outbound webhooks (docs/design.md#webhooks): the operator's endpoints, the deliverer that queues
 * each endpoint's messages from the log and sends them signed to the Standard Webhooks spec, the
 * delivery log and replay. No HTTP routes here (they are @waybill/http's).
 */
export { WEBHOOKS_FILE } from './db/open-db.js'
export { parseEndpointUrl, isLoopback, WebhookInputError } from './endpoints/endpoint-url.js'
export { parseEventNames, parseAccount } from './endpoints/event-filter.js'
export { WebhookAdmin, UnknownEndpointError, type NewEndpoint, type Replayed } from './endpoints/endpoint-admin.js'
export { DeliveryLog } from './log/delivery-log.js'
export type { EndpointSummary, DeliveryAttempt, AttemptQuery } from './log/listings.js'
export { webhookMessage, MESSAGE_TYPES, type WebhookMessage, type ImageLink, type MessageEnvelope } from './message/webhook-message.js'
export { signatureHeader } from './signing/sign.js'
export { webhookIdFor } from './signing/webhook-id.js'
export { DEFAULT_RETRY_SCHEDULE, retryDelay, retryAfterMs } from './delivery/schedule.js'
export { postWebhook, ATTEMPT_OUTCOMES, type AttemptOutcome, type SendOptions, type SendResult } from './delivery/send.js'
export type { DeliverySettings } from './delivery/delivery-loop.js'
export {
  startWebhookDeliverer, DEFAULT_DELIVERY_SETTINGS, type WebhookDeliverer, type WebhookDelivererOptions, type WebhookEndpointStatus,
} from './delivery/start-deliverer.js'
export { webhookMetrics, type MetricFamily } from './metrics.js'
