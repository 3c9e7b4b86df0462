import { evolve, orderDecider, upcastOrderEvent, type ImageRef, type OrderState } from '@waybill/domain'
import type { RecordedEvent } from '@waybill/event-store'

/** The order before its first event, as the domain's fold starts it. */
export function initialOrderState(): OrderState {
  return orderDecider.initialState()
}

/**
 * The domain's own fold (not the projector's) of one stored event: a type the domain does not
 * know leaves the state as it was.
 */
export function evolveRecorded(state: OrderState, event: RecordedEvent): OrderState {
  const current = upcastOrderEvent(event)
  return current === null ? state : evolve(state, current)
}

/** A state as the history shows it: without the event ids the decider keeps for idempotency. */
export function shownState(state: OrderState): Record<string, unknown> {
  const { eventIds: _ids, ...fields } = state
  return fields
}

/**
 * The image the order's events recorded last (docs/audit.md#images), by the domain's own fold of
 * the stream read a slice at a time: what an image route must serve, whatever the read model's
 * row says.
 */
export async function recordedImage(slices: AsyncIterable<readonly RecordedEvent[]>, image: 'pod' | 'signature'): Promise<ImageRef | null> {
  let state = initialOrderState()
  for await (const slice of slices) state = slice.reduce(evolveRecorded, state)
  return state.exists ? state[image] ?? null : null
}
