import type { OrderAddedData, OrderCanceledData, OrderCompletedData, OrderEventType, OrderUpdatedData } from './events.js'

/** The four wire event names (docs/contract.md#event-envelope). */
export const WIRE_EVENTS = ['ORDER_ADD', 'ORDER_UPDATE', 'ORDER_COMPLETE', 'ORDER_CANCELED'] as const
export type WireEvent = (typeof WIRE_EVENTS)[number]

/**
 * The stored event each wire event appends when it is accepted: the one home of this pairing
 * (the decider appends these; webhook endpoints are filtered by wire name and read stored types).
 */
export const STORED_EVENT_TYPE = {
  ORDER_ADD: 'OrderAdded',
  ORDER_UPDATE: 'OrderUpdated',
  ORDER_COMPLETE: 'OrderCompleted',
  ORDER_CANCELED: 'OrderCanceled',
} as const satisfies Readonly<Record<WireEvent, OrderEventType>>

interface Command<Type extends WireEvent, Data> {
  readonly type: Type
  readonly data: Data
  /** Deterministic id (UUID v5) of the event this command would append; see `eventIdFor`. */
  readonly eventId: string
}

export type AddOrder = Command<'ORDER_ADD', OrderAddedData>
export type UpdateOrder = Command<'ORDER_UPDATE', OrderUpdatedData>
export type CompleteOrder = Command<'ORDER_COMPLETE', OrderCompletedData>
export type CancelOrder = Command<'ORDER_CANCELED', OrderCanceledData>

/** A validated request to change one order. */
export type OrderCommand = AddOrder | UpdateOrder | CompleteOrder | CancelOrder
