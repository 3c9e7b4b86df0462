/** An image kept in content-addressed storage; the event keeps only this reference. */
export interface ImageRef {
  readonly sha256: string
  readonly media_type: ImageMediaType
  readonly bytes: number
}

export type ImageMediaType = 'image/jpeg' | 'image/png' | 'image/webp'

/** The two values the wire `status` field accepts. */
export type WireStatus = 'pending' | 'in_progress'

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

/** Metadata every stored order event carries (DESIGN.md §2); the store adds `prev_hash`. */
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

export type OrderEventType = OrderEvent['type']

export const SCHEMA_VERSION = 1
