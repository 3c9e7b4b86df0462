import type { OrderCommand } from './commands.js'
import { decide } from './decide.js'
import type { Decider } from './decider.js'
import type { DomainErrorCode } from './errors.js'
import type { OrderEvent } from './events.js'
import { evolve } from './evolve.js'
import { initialState, type OrderState } from './order-state.js'
import { upcastOrderEvent } from './upcast.js'

/**
 * The order decider the command handler runs: pure, no clock, no ids of its own. It folds the
 * events it is given as stored (with their metadata), so an event of an older schema version is
 * upcast first and one of a newer version refused (upcast.ts); a type it does not know leaves the
 * state as it was.
 */
export const orderDecider: Decider<OrderCommand, OrderEvent, OrderState, DomainErrorCode> = {
  initialState,
  evolve: (state, event) => {
    const current = upcastOrderEvent(event)
    return current === null ? state : evolve(state, current)
  },
  decide,
}

/** Replays a stream's facts from the initial state (for the projector, replay and the CLI). */
export function foldOrder(events: Iterable<OrderEvent & { readonly id: string }>): OrderState {
  let state = initialState()
  for (const event of events) state = evolve(state, event)
  return state
}
