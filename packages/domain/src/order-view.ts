import type { ImageRef } from './events.js'
import type { OpenedOrderEvent } from './personal.js'
import { isLocked, STATUS_AFTER, type OrderStatus } from './statuses.js'

/**
 * An order as a reader sees it, folded from its opened events: what the read model's row holds,
 * what replay and the history show after each event, what `waybill verify` compares the row
 * with. A personal field is null when it was erased (or when the event that set it could not be
 * opened); `erased_at` is set once the order's personal data was erased.
 */
export interface OrderView {
  readonly order_id: string
  readonly customer: string | null
  readonly location: string | null
  readonly status: OrderStatus
  readonly address: string | null
  readonly delivery_date: string
  /** Set by OrderCompleted. */
  readonly recipient?: string | null
  readonly pod?: ImageRef | null
  readonly signature?: ImageRef | null
  /** Set by OrderCanceled. */
  readonly reason?: string | null
  /** `event_date` of the OrderAdded. */
  readonly created_date: string
  /** `event_date` of the last delivery event applied, in stream order. */
  readonly last_event_date: string
  /** When its personal data was erased. */
  readonly erased_at?: string
}

/**
 * Folds one opened event into the view, by the same rules as the decider's `evolve`: an event
 * that cannot apply (an OrderAdded on an existing order, a change before it exists or after it
 * is locked or erased) leaves the view as it was.
 */
export function evolveView(view: OrderView | null, event: OpenedOrderEvent): OrderView | null {
  if (event.type === 'OrderAdded') {
    if (view !== null) return view
    const { data } = event
    return {
      order_id: data.order_id, customer: data.customer, location: data.location, status: data.status, address: data.address,
      delivery_date: data.delivery_date, created_date: data.event_date, last_event_date: data.event_date,
    }
  }
  if (view === null) return view
  if (event.type === 'PersonalDataErased') {
    if (view.erased_at !== undefined) return view
    return {
      ...view, customer: null, location: null, address: null,
      ...(view.recipient === undefined ? {} : { recipient: null }),
      ...(view.pod === undefined ? {} : { pod: null }),
      ...(view.signature === undefined ? {} : { signature: null }),
      ...(view.reason === undefined ? {} : { reason: null }),
      erased_at: event.data.erased_at,
    }
  }
  if (view.erased_at !== undefined || isLocked(view.status)) return view
  switch (event.type) {
    case 'OrderUpdated':
      return { ...view, status: event.data.status, address: event.data.address, delivery_date: event.data.delivery_date, last_event_date: event.data.event_date }
    case 'OrderCompleted':
      return {
        ...view,
        status: STATUS_AFTER.OrderCompleted,
        address: event.data.address,
        delivery_date: event.data.delivery_date,
        recipient: event.data.recipient,
        pod: event.data.pod,
        ...(event.data.signature === undefined ? {} : { signature: event.data.signature }),
        last_event_date: event.data.event_date,
      }
    case 'OrderCanceled':
      return { ...view, status: STATUS_AFTER.OrderCanceled, reason: event.data.reason, last_event_date: event.data.event_date }
  }
}
