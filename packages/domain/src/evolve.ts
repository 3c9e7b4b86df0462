import type { OrderEvent } from './events.js'
import type { ExistingOrder, OrderState } from './order-state.js'
import { isLocked, STATUS_AFTER } from './statuses.js'

/**
 * Folds one stored fact into the state. `decide` never produces a fact that cannot apply (an
 * OrderAdded on an existing order, anything on a missing or locked one); should a stream hold one
 * anyway, only its id is recorded, so that replay stays total and the state keeps the rules.
 */
export function evolve(state: OrderState, event: OrderEvent & { readonly id: string }): OrderState {
  const eventIds = [...state.eventIds, event.id]
  if (event.type === 'OrderAdded') {
    if (state.exists) return { ...state, eventIds }
    const { data } = event
    return {
      exists: true,
      eventIds,
      status: data.status,
      order_id: data.order_id,
      customer: data.customer,
      location: data.location,
      address: data.address,
      delivery_date: data.delivery_date,
      created_date: data.event_date,
      last_event_date: data.event_date,
    }
  }
  if (!state.exists || isLocked(state.status)) return { ...state, eventIds }
  return applyChange(state, eventIds, event)
}

function applyChange(
  state: ExistingOrder,
  eventIds: readonly string[],
  event: Exclude<OrderEvent, { type: 'OrderAdded' }> & { readonly id: string },
): ExistingOrder {
  switch (event.type) {
    case 'OrderUpdated':
      return {
        ...state,
        eventIds,
        status: event.data.status,
        address: event.data.address,
        delivery_date: event.data.delivery_date,
        last_event_date: event.data.event_date,
      }
    case 'OrderCompleted':
      return {
        ...state,
        eventIds,
        status: STATUS_AFTER.OrderCompleted,
        address: event.data.address,
        delivery_date: event.data.delivery_date,
        recipient: event.data.recipient,
        pod: event.data.pod,
        ...(event.data.signature === undefined ? {} : { signature: event.data.signature }),
        last_event_date: event.data.event_date,
      }
    case 'OrderCanceled':
      return { ...state, eventIds, status: STATUS_AFTER.OrderCanceled, reason: event.data.reason, last_event_date: event.data.event_date }
  }
}
