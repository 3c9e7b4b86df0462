import { Type, type Static } from 'typebox'
import { ERROR_MESSAGE, LIMITS } from '@waybill/domain'
import { choice, integer, orderId, orderStatus, pageSize, text, timestamp } from '@waybill/domain/wire'
import { ref } from '../../openapi/ref.js'

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()])

const ImageRefSchema = Type.Object({
  sha256: Type.String(),
  media_type: Type.String(),
  bytes: Type.Integer(),
}, { description: 'A stored image; GET …/pod or …/signature answers its bytes' })

/**
 * Shown to auditor keys (orders:audit) only. The global position counts every account's events,
 * so a tenant watching it would see how busy the others are (docs/contract.md#read-api).
 */
const AuditOnly = (description: string) => Type.Optional(Type.String({ description: `${description}; auditor keys only` }))

export const OrderSchema = Type.Object({
  account: AuditOnly('The order\'s account'),
  order_id: Type.String(),
  customer: Nullable(Type.String({ description: 'Null once the order\'s personal data was erased' })),
  location: Nullable(Type.String({ description: 'Null once erased' })),
  status: orderStatus('The order\'s state'),
  address: Nullable(Type.String()),
  delivery_date: Nullable(Type.String()),
  recipient: Nullable(Type.String()),
  reason: Nullable(Type.String()),
  pod: Type.Union([ImageRefSchema, Type.Null()]),
  signature: Type.Union([ImageRefSchema, Type.Null()]),
  created_at: Type.String({ description: 'event_date of ORDER_ADD' }),
  updated_at: Type.String({ description: 'event_date of the latest event of the order' }),
  received_at: Nullable(Type.String({ description: 'When the service received the latest event' })),
  last_event: Type.String({ description: 'Stored type of the latest event' }),
  revision: Type.Integer({ description: 'Revision (from 0) of the latest event in the order stream' }),
  position: AuditOnly('Global log position of the latest event (decimal)'),
  erased_at: Nullable(Type.String({ description: 'When the order\'s personal data was erased (waybill erase, or the retention period); every personal field is then null' })),
}, { description: 'An order as the read model holds it; it trails the event log by a moment' })

/** An order as the read API answers it; its one definition is `OrderSchema`. */
export type OrderView = Static<typeof OrderSchema>

export const OrderParams = Type.Object({
  order_id: orderId('The order\'s id, as its ORDER_ADD sent it'),
})

/**
 * The account an auditor key reads (docs/contract.md#auditor-keys): one string; whether it is an
 * account id is the route's check, for auditor keys only (an ordinary key's is ignored on the
 * one-order routes).
 */
const AuditedAccount = Type.Optional(Type.String({ description: 'Auditor keys only, and required for them: the account to read' }))

/** The one-order routes' query: nothing but an auditor's account. */
export const OneOrderQuery = Type.Object({ account: AuditedAccount })

export const ListQuery = Type.Object({
  status: Type.Optional(orderStatus('Orders in this state')),
  customer: Type.Optional(text('Orders of this customer')),
  location: Type.Optional(text('Orders to this location')),
  updated_since: Type.Optional(timestamp('Orders whose latest event is dated at or after it (exact to the nanosecond).')),
  limit: Type.Optional(pageSize('Orders on a page', LIMITS.ordersPageMax, LIMITS.ordersPageDefault)),
  cursor: Type.Optional(text('next_cursor of the previous page, with the same filters (limit may change)')),
  account: Type.Optional(Type.String({ description: 'Auditor keys only: list this account\'s orders (every account\'s when absent)' })),
}, { additionalProperties: false, [ERROR_MESSAGE]: 'not a parameter of this list' })

export const OrderListSchema = Type.Object({
  orders: Type.Array(ref<typeof OrderSchema>('Order')),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as cursor for the next page, with the same filters; null on the last' }),
}, { description: 'A page of orders (from the read model), in order_id order, and the cursor of the next page' })

/** A page of one order's events: from after a revision, at most `limit` of them. */
const EventPage = {
  after: Type.Optional(integer('Events after this revision: the next_cursor of the previous page (from the first event when absent)', 0)),
  limit: Type.Optional(pageSize('Events on a page', LIMITS.historyPageMax, LIMITS.historyPageDefault)),
}

/** The proof route's query: an auditor's account and a page of the order's events. */
export const ProofQuery = Type.Object({ account: AuditedAccount, ...EventPage })

export const HistoryQuery = Type.Object({
  account: AuditedAccount,
  ...EventPage,
  format: Type.Optional(choice(['json', 'csv'], 'csv: text/csv, one row per event (data and state_after as canonical JSON), the chain verdict last')),
})

/** One event of an order's history: an auditor's record of it. */
export const HistoryEntrySchema = Type.Object({
  event_id: Type.String({ description: 'The event id (UUID v5, deterministic); the Waybill-Event-Id header of the answer that stored it' }),
  stream: Type.String({ description: 'The order\'s stream, order-<account>-<order_id>' }),
  type: Type.String(),
  data: Type.Object({}, { additionalProperties: true, description: 'The event\'s data as stored, what its leaf commits to: the personal fields sealed in `personal`' }),
  fields: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
    description: 'The event\'s fields as sent (images by their sha256), opened from its sealed part; each personal one null once erased. Null for a type this version does not know',
  }),
  erased: Type.Boolean({ description: 'True when the event\'s personal fields were erased: `fields` holds null in their places' }),
  event_date: Nullable(Type.String()),
  received_at: Nullable(Type.String()),
  revision: Type.Integer(),
  position: AuditOnly('Global log position of the event (decimal)'),
  leaf_index: Type.Union([Type.Integer(), Type.Null()], { description: 'Its leaf in the audit log; null until projected' }),
  key_id: Nullable(Type.String({ description: 'Id of the API key that sent it' })),
  request_id: Nullable(Type.String({ description: 'X-Request-Id of the request that sent it' })),
  state_after: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], { description: 'The order\'s state after this event (the domain\'s fold of its opened events); null before its ORDER_ADD' }),
  hash: Type.String(),
  prev_hash: Nullable(Type.String()),
}, { description: 'One stored event of the order' })

export const HistorySchema = Type.Object({
  account: AuditOnly('The order\'s account'),
  order_id: Type.String(),
  events: Type.Array(ref<typeof HistoryEntrySchema>('HistoryEntry')),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `after` for the next page of events; null on the last' }),
  chain: Type.Union([
    Type.Object({ ok: Type.Literal(true) }),
    Type.Object({ ok: Type.Literal(false), revision: Type.Integer(), reason: Type.String() }),
  ], { description: 'The stream\'s hash chain: ok, or the first revision where it breaks' }),
}, { description: 'The order\'s stored events, oldest first, each with the state after it, and the verdict on its hash chain (with ?format=csv, the same as text/csv)' })
