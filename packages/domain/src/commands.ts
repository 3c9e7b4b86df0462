import type { OrderAddedData, OrderCanceledData, OrderCompletedData, OrderEventType, OrderUpdatedData, PersonalDataErasedData } from './events.js'

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

interface Command<Type extends string, Data> {
  readonly type: Type
  /** The data of the event it would append, as stored: personal fields already sealed. */
  readonly data: Data
  /** Deterministic id (UUID v5) of the event this command would append; see `eventIdFor`. */
  readonly eventId: string
}

export type AddOrder = Command<'ORDER_ADD', OrderAddedData>
export type UpdateOrder = Command<'ORDER_UPDATE', OrderUpdatedData>
export type CompleteOrder = Command<'ORDER_COMPLETE', OrderCompletedData>
export type CancelOrder = Command<'ORDER_CANCELED', OrderCanceledData>
/** An operator's erasure of the order's personal data (`waybill erase`, retention); never sent over HTTP. */
export type EraseOrder = Command<'ERASE_PERSONAL_DATA', PersonalDataErasedData>

/** A request to change one order: a courier's delivery event or an operator's erasure. */
export type OrderCommand = AddOrder | UpdateOrder | CompleteOrder | CancelOrder | EraseOrder
