import { evolve, isLocked, orderDecider, upcastOrderEvent, type OpenedOrderEvent, type OrderState, type StoredImageRef } from '@waybill/domain'
import type { RecordedEvent } from '@waybill/event-store'
import { openOrderEvent, type KeyLookup } from '@waybill/personal-data'

/**
 * One stored event, opened with the order's key: its fields as sent (null where erased); null for
 * a type the domain does not know.
 */
export function openRecorded(stream: string, key: KeyLookup, event: RecordedEvent): OpenedOrderEvent | null {
  const current = upcastOrderEvent(event)
  return current === null ? null : openOrderEvent(stream, current, key)
}

/** The image the order's events recorded, and the completion that recorded it. */
export interface RecordedImage {
  readonly ref: StoredImageRef
  readonly completion: RecordedEvent
}

/**
 * The image the order's events recorded (docs/audit.md#images), by the domain's own rules over
 * the stream read a slice at a time, with no key needed: the blob of the completion that locked
 * the order, whatever the read model's row says. Null when none recorded one.
 */
export async function recordedImage(slices: AsyncIterable<readonly RecordedEvent[]>, image: 'pod' | 'signature'): Promise<RecordedImage | null> {
  let state: OrderState = orderDecider.initialState()
  for await (const slice of slices) {
    for (const event of slice) {
      const current = upcastOrderEvent(event)
      if (current === null) continue
      const changeable = state.exists && !state.erased && !isLocked(state.status)
      state = evolve(state, { ...current, id: event.id })
      if (changeable && current.type === 'OrderCompleted') {
        const ref = current.data[image]
        return ref === undefined ? null : { ref, completion: event }
      }
    }
  }
  return null
}
