import { setImmediate } from 'node:timers/promises'
import { evolve, evolveView, isLocked, orderDecider, upcastOrderEvent, type OpenedOrderEvent, type OrderView, type StoredImageRef } from '@waybill/domain'
import type { RecordedEvent } from '@waybill/event-store'
import { openOrderEvent, type KeyLookup } from '@waybill/personal-data'

/** Events folded between two turns given back to the event loop (about half a millisecond of work). */
const FOLD_SLICE = 200

/** An order's stream with its key, as the one-order routes read it. */
export interface OrderStream {
  readonly stream: string
  readonly events: readonly RecordedEvent[]
  /** The order's key in the key store (`'erased'` once destroyed). */
  readonly key: KeyLookup
}

/** One stored event, opened: its fields as sent (null where erased); null for a type the domain does not know. */
export function openedAt(order: OrderStream, index: number): OpenedOrderEvent | null {
  const current = upcastOrderEvent(order.events[index] as RecordedEvent)
  return current === null ? null : openOrderEvent(order.stream, current, order.key)
}

/**
 * The order's view after each of `events.slice(from, to)`, as the domain's own fold gives it (not
 * the projector's), from its opened events; the events before `from` are folded too, since each
 * view depends on them. A type the domain does not know leaves the view as it was. The fold gives
 * the event loop back every few hundred events, so reading a long order holds no other request
 * for long.
 */
export async function statesAfter(order: OrderStream, from = 0, to = order.events.length): Promise<Array<OrderView | null>> {
  let view: OrderView | null = null
  const shown: Array<OrderView | null> = []
  for (let i = 0; i < to; i += 1) {
    if (i > 0 && i % FOLD_SLICE === 0) await setImmediate()
    const opened = openedAt(order, i)
    if (opened !== null) view = evolveView(view, opened)
    if (i >= from) shown.push(view)
  }
  return shown
}

/**
 * The image the order's events recorded (docs/audit.md#images), from the stored events by the
 * domain's own rules (no key needed): the blob of the completion that locked the order, and where
 * that completion is in the stream, whatever the read model's row says. Null when none recorded one.
 */
export function recordedImage(events: readonly RecordedEvent[], image: 'pod' | 'signature'): { readonly ref: StoredImageRef; readonly index: number } | null {
  let state = orderDecider.initialState()
  for (const [index, event] of events.entries()) {
    const current = upcastOrderEvent(event)
    if (current === null) continue
    const changeable = state.exists && !state.erased && !isLocked(state.status)
    state = evolve(state, { ...current, id: event.id })
    if (changeable && current.type === 'OrderCompleted') {
      const ref = current.data[image]
      return ref === undefined ? null : { ref, index }
    }
  }
  return null
}
