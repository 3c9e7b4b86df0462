import { STORED_EVENT_TYPE, type OrderCommand } from './commands.js'
import type { Decision } from './decider.js'
import type { DomainErrorCode } from './errors.js'
import type { OrderEvent } from './events.js'
import type { OrderState } from './order-state.js'
import { LIMITS } from './limits.js'
import { isLocked } from './statuses.js'

type OrderDecision = Decision<OrderEvent, DomainErrorCode>

const alreadyApplied: OrderDecision = { outcome: 'already_applied' }

function rejected(error: DomainErrorCode): OrderDecision {
  return { outcome: 'rejected', error }
}

/**
 * The order rules (docs/contract.md#states-and-transitions). An exact retry (its deterministic id is already in the stream) is
 * recognised first, so that it answers its original success even after the order moved on or
 * was locked; everything else meets conflict, not_found and locked as the spec says, and an update
 * past the events an order may hold meets too_many_events. An order whose personal data was
 * erased takes no event any more (`locked`; ORDER_ADD still meets `conflict`), and is erased once.
 */
export function decide(command: OrderCommand, state: OrderState): OrderDecision {
  if (state.eventIds.includes(command.eventId)) return alreadyApplied
  const id = command.eventId
  if (command.type === 'ORDER_ADD') {
    if (state.exists) return rejected('conflict')
    return { outcome: 'append', events: [{ type: STORED_EVENT_TYPE.ORDER_ADD, data: command.data, id }] }
  }
  if (!state.exists) return rejected('not_found')
  if (command.type === 'ERASE_PERSONAL_DATA') {
    // Its id is the order's own (eraseEventIdFor), so a second erasure is an exact retry above;
    // this catches one with another id, which the decider never makes.
    if (state.erased) return alreadyApplied
    return { outcome: 'append', events: [{ type: 'PersonalDataErased', data: command.data, id }] }
  }
  if (state.erased || isLocked(state.status)) return rejected('locked')
  // The last place an order has is for the event that closes it.
  if (command.type === 'ORDER_UPDATE' && state.eventIds.length >= LIMITS.orderEventsMax - 1) return rejected('too_many_events')
  switch (command.type) {
    case 'ORDER_UPDATE':
      return { outcome: 'append', events: [{ type: STORED_EVENT_TYPE.ORDER_UPDATE, data: command.data, id }] }
    case 'ORDER_COMPLETE':
      return { outcome: 'append', events: [{ type: STORED_EVENT_TYPE.ORDER_COMPLETE, data: command.data, id }] }
    case 'ORDER_CANCELED':
      return { outcome: 'append', events: [{ type: STORED_EVENT_TYPE.ORDER_CANCELED, data: command.data, id }] }
  }
}
