import { setImmediate } from 'node:timers/promises'
import { evolve, orderDecider, upcastOrderEvent, type ImageRef, type OrderState } from '@waybill/domain'
import type { RecordedEvent } from '@waybill/event-store'

/** Events folded between two turns given back to the event loop (about half a millisecond of work). */
const FOLD_SLICE = 200

/**
 * The order's state after each of `events.slice(from, to)`, as the domain's own fold gives it (not
 * the projector's), without the event ids the decider keeps for idempotency; the events before
 * `from` are folded too, since each state depends on them. A type the domain does not know leaves
 * the state as it was. The fold gives the event loop back every few hundred events, so reading a
 * long order holds no other request for long.
 */
export async function statesAfter(events: readonly RecordedEvent[], from = 0, to = events.length): Promise<Array<Record<string, unknown>>> {
  let state: OrderState = orderDecider.initialState()
  const shown: Array<Record<string, unknown>> = []
  for (let i = 0; i < to; i += 1) {
    if (i > 0 && i % FOLD_SLICE === 0) await setImmediate()
    state = evolveRecorded(state, events[i] as RecordedEvent)
    if (i >= from) {
      const { eventIds: _ids, ...fields } = state
      shown.push(fields)
    }
  }
  return shown
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
  const current = upcastOrderEvent(event)
  return current === null ? state : evolve(state, current)
}
