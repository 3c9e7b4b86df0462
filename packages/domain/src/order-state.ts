import type { ImageRef } from './events.js'
import type { OrderStatus } from './statuses.js'

/** No OrderAdded in the stream yet. */
export interface NoOrder {
  readonly exists: false
  /** Ids of the events already in the stream, oldest first (for exact-retry detection). */
  readonly eventIds: readonly string[]
}

/** An order, as its stream's facts left it. */
export interface ExistingOrder {
  readonly exists: true
  readonly eventIds: readonly string[]
  readonly status: OrderStatus
  readonly order_id: string
  readonly customer: string
  readonly location: string
  readonly address: string
  readonly delivery_date: string
  /** Set by OrderCompleted. */
  readonly recipient?: string
  readonly pod?: ImageRef
  readonly signature?: ImageRef
  /** Set by OrderCanceled. */
  readonly reason?: string
  /** `event_date` of the OrderAdded. */
  readonly created_date: string
  /** `event_date` of the last event applied, in stream order. */
  readonly last_event_date: string
}

/** The state `decide` reads: `exists` tells the two cases apart. */
export type OrderState = NoOrder | ExistingOrder

export function initialState(): OrderState {
  return { exists: false, eventIds: [] }
}
