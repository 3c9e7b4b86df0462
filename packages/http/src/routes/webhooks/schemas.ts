import { Type } from 'typebox'
import { ERROR_MESSAGE, LIMITS, WIRE_EVENTS } from '@waybill/domain'
import { choice, integer, pageSize } from '@waybill/domain/wire'
import { ATTEMPT_OUTCOMES } from '@waybill/webhooks'

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()])
const Time = (description: string) => Type.String({ description: `${description} (RFC 3339, UTC)` })

/** How an endpoint is named: `ep_` and 16 hex digits, as `waybill webhooks add` made it. */
const ENDPOINT_ID = '^ep_[0-9a-f]{16}$'

const WebhookEndpointSchema = Type.Object({
  id: Type.String({ pattern: ENDPOINT_ID, description: 'The endpoint\'s id, as `waybill webhooks add` printed it' }),
  url: Type.String({ description: 'Where its messages are POSTed' }),
  account: Nullable(Type.String({ description: 'The one account whose events it gets; null for every account' })),
  events: Type.Union([Type.Array(choice([...WIRE_EVENTS], 'A wire event it gets')), Type.Null()], { description: 'The events it gets; null for every one' }),
  state: choice(['enabled', 'disabled'], 'Disabled by the operator, by a 410 Gone, or once its retry schedule was spent'),
  disabled_at: Nullable(Time('When it was disabled')),
  disabled_reason: Nullable(Type.String({ description: 'Why it was disabled' })),
  held_until: Nullable(Time('Until when a receiver\'s Retry-After (on 429 or 503) holds it back')),
  created_at: Time('When it was added'),
  last_success_at: Nullable(Time('Its latest delivered attempt')),
  backlog: Type.Integer({ minimum: 0, description: 'Messages not delivered yet' }),
  oldest_pending_at: Nullable(Time('When the oldest of them was accepted')),
  signing_secrets: Type.Integer({ minimum: 0, description: 'Secrets that sign its messages now: 2 during a rotation\'s grace (the secrets themselves are never shown)' }),
}, { description: 'A webhook endpoint the operator added (docs/contract.md#webhooks)' })

export const WebhookEndpointListSchema = Type.Object({
  endpoints: Type.Array(WebhookEndpointSchema, { description: 'Every endpoint, oldest first' }),
}, { description: 'The operator\'s webhook endpoints' })

const DeliveryAttemptSchema = Type.Object({
  id: Type.Integer({ minimum: 1, description: 'The attempt\'s number in the delivery log (grows with time)' }),
  at: Time('When it was made'),
  endpoint_id: Type.String({ pattern: ENDPOINT_ID }),
  webhook_id: Type.String({ description: 'The message\'s webhook-id: the same on every attempt and replay of one event to one endpoint' }),
  event_id: Type.String({ description: 'The event it carries (Waybill-Event-Id)' }),
  event_type: Type.String({ description: 'The event\'s stored type' }),
  account: Type.String(),
  order_id: Type.String(),
  revision: Type.Integer({ minimum: 0, description: 'The event\'s revision in its order\'s stream' }),
  outcome: choice([...ATTEMPT_OUTCOMES], 'delivered (2xx), failed (another status), gone (410), timeout (no answer in time), error (no connection, or no message could be made)'),
  status: Type.Union([Type.Integer(), Type.Null()], { description: 'The receiver\'s HTTP status; null when none came' }),
  duration_ms: Type.Integer({ minimum: 0 }),
  error: Nullable(Type.String({ description: 'Why it did not count as delivered: the status and the start of the answer, or what failed' })),
}, { description: 'One attempt to deliver one message' })

export const DeliveryPageSchema = Type.Object({
  deliveries: Type.Array(DeliveryAttemptSchema, { description: 'Newest first' }),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `before` for the next (older) page; null on the last' }),
}, { description: 'A page of the delivery log, newest attempt first' })

export const DeliveryQuery = Type.Object({
  endpoint: Type.Optional(Type.String({ pattern: ENDPOINT_ID, description: 'Only this endpoint\'s attempts', [ERROR_MESSAGE]: 'must be an endpoint id (ep_ and 16 hex digits)' })),
  failed: Type.Optional(choice(['true', 'false'], 'true: only the attempts that did not deliver')),
  before: Type.Optional(integer('next_cursor of the previous page: only older attempts', 1)),
  limit: Type.Optional(pageSize('Attempts on a page', LIMITS.ordersPageMax, 50)),
}, { additionalProperties: false, [ERROR_MESSAGE]: 'not a parameter of the delivery log' })
