import type { OrderCommand } from './commands.js'
import { decide } from './decide.js'
import type { Decider } from './decider.js'
import type { DomainErrorCode } from './errors.js'
import type { OrderEvent } from './events.js'
import { evolve } from './evolve.js'
import { initialState, type OrderState } from './order-state.js'

/** The order decider the command handler runs: pure, no clock, no ids of its own. */
export const orderDecider: Decider<OrderCommand, OrderEvent, OrderState, DomainErrorCode> = {
  initialState,
  evolve,
  decide,
}

/** Replays a stream's facts from the initial state (for the projector, replay and the CLI). */
export function foldOrder(events: Iterable<OrderEvent & { readonly id: string }>): OrderState {
  let state = initialState()
  for (const event of events) state = evolve(state, event)
  return state
}
