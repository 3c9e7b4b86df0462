import { evolve, isOrderEventType, orderDecider, type ImageRef, type OrderEvent, type OrderState } from '@waybill/domain'
import type { RecordedEvent } from '@waybill/event-store'

/**
 * The order's state after each event, as the domain's own fold gives it (not the projector's),
 * without the event ids the decider keeps for idempotency. A type the domain does not know
 * leaves the state as it was.
 */
export function statesAfter(events: readonly RecordedEvent[]): Array<Record<string, unknown>> {
  let state: OrderState = orderDecider.initialState()
  return events.map((event) => {
    state = evolveRecorded(state, event)
    const { eventIds: _ids, ...shown } = state
    return shown
  })
}

/**
 * The image the order's events recorded last (docs/audit.md#images), by the domain's own fold:
 * what an image route must serve, whatever the read model's row says.
 */
export function recordedImage(events: readonly RecordedEvent[], image: 'pod' | 'signature'): ImageRef | null {
  const state = events.reduce(evolveRecorded, orderDecider.initialState())
  return state.exists ? state[image] ?? null : null
}

function evolveRecorded(state: OrderState, event: RecordedEvent): OrderState {
  return isOrderEventType(event.type)
    ? evolve(state, { id: event.id, type: event.type, data: event.data } as unknown as OrderEvent & { id: string })
    : state
}
