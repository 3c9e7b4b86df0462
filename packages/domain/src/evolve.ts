import type { OrderEvent } from './events.js'
import type { OrderState } from './order-state.js'
import { isLocked, STATUS_AFTER } from './statuses.js'

/**
 * Folds one stored fact into the decider's state. `decide` never produces a fact that cannot
 * apply (an OrderAdded on an existing order, anything on a missing, locked or erased one, an
 * erasure of a missing order); should a stream hold one anyway, only its id is recorded, so that
 * replay stays total and the state keeps the rules.
 */
export function evolve(state: OrderState, event: OrderEvent & { readonly id: string }): OrderState {
  const eventIds = [...state.eventIds, event.id]
  if (event.type === 'OrderAdded') {
    if (state.exists) return { ...state, eventIds }
    return { exists: true, eventIds, status: event.data.status, erased: false }
  }
  if (!state.exists) return { ...state, eventIds }
  if (event.type === 'PersonalDataErased') return { ...state, eventIds, erased: true }
  if (state.erased || isLocked(state.status)) return { ...state, eventIds }
  switch (event.type) {
    case 'OrderUpdated':
      return { ...state, eventIds, status: event.data.status }
    case 'OrderCompleted':
    case 'OrderCanceled':
      return { ...state, eventIds, status: STATUS_AFTER[event.type] }
  }
}
