import type { WireStatus } from './statuses.js'

/** An image kept in content-addressed storage; the event keeps only this reference. */
export interface ImageRef {
  readonly sha256: string
  readonly media_type: ImageMediaType
  readonly bytes: number
}

export type ImageMediaType = 'image/jpeg' | 'image/png' | 'image/webp'

export interface OrderAddedData {
  readonly order_id: string
  readonly customer: string
  readonly location: string
  readonly status: WireStatus
  readonly address: string
  readonly delivery_date: string
  readonly event_date: string
}

export interface OrderUpdatedData {
  readonly order_id: string
  readonly status: WireStatus
  readonly address: string
  readonly delivery_date: string
  readonly event_date: string
}

export interface OrderCompletedData {
  readonly order_id: string
  readonly address: string
  readonly delivery_date: string
  readonly recipient: string
  readonly pod: ImageRef
  readonly signature?: ImageRef
  readonly event_date: string
}

export interface OrderCanceledData {
  readonly order_id: string
  readonly reason: string
  readonly event_date: string
}

/** Metadata every stored order event carries (docs/design.md#events-and-metadata); the store adds `prev_hash`. */
export interface OrderEventMetadata {
  readonly received_at: string
  readonly key_id: string
  readonly request_id: string
  readonly schema_version: number
}

interface Event<Type extends string, Data> {
  readonly type: Type
  readonly data: Data
}

export type OrderAdded = Event<'OrderAdded', OrderAddedData>
export type OrderUpdated = Event<'OrderUpdated', OrderUpdatedData>
export type OrderCompleted = Event<'OrderCompleted', OrderCompletedData>
export type OrderCanceled = Event<'OrderCanceled', OrderCanceledData>

/** The facts stored in an order stream. */
export type OrderEvent = OrderAdded | OrderUpdated | OrderCompleted | OrderCanceled

/** The stored order event types: the one home of this list. */
export const ORDER_EVENT_TYPES = ['OrderAdded', 'OrderUpdated', 'OrderCompleted', 'OrderCanceled'] as const satisfies ReadonlyArray<OrderEvent['type']>

export type OrderEventType = (typeof ORDER_EVENT_TYPES)[number]

export function isOrderEventType(type: string): type is OrderEventType {
  return (ORDER_EVENT_TYPES as readonly string[]).includes(type)
}

export const SCHEMA_VERSION = 1
