import { isSealed, openedEvent, parseOrderStreamName, streamNameFor, type PersonalPart, type SealedPersonal } from '@waybill/domain'
import type { ProjectionEvent } from '@waybill/event-store'
import { personalContext, type KeyLookup, type OpeningThreads, type OrderRef, type SealedItem, type SubjectKeyStore } from '@waybill/personal-data'
import type { EventOpener } from './fold.js'
import { rebuildOpener, REBUILD_ORDERS_HELD, replacedByNext } from './opener.js'

/** The parts of one batch opened ahead; `done()` lets them go once the batch is applied. */
interface OpenedAhead {
  done(): void
}

/** A rebuild's opener that has the sealed parts of each batch opened on another thread first. */
export interface OpenAhead {
  /**
   * Sends the sealed parts of `events` whose order has a key to the opening thread, at once
   * (before this returns), and resolves once they are open: the caller applies the batch before
   * while they are.
   */
  readonly prepare: (events: readonly ProjectionEvent[]) => Promise<OpenedAhead>
  /** The fold's opener: a part opened ahead is used as it is; any other is opened here, as `rebuildOpener` does. */
  readonly open: EventOpener
}

/**
 * Opening on the second core (docs/design.md#read-model-generations-and-rebuild): each order's
 * key is looked up once here (for the thread and for the parts opened here alike; the keys of a
 * batch's new orders in one read) and sent with its parts; what the thread could not open (a
 * changed part, a key that does not match) is opened here, and throws here what it throws. A part
 * opened ahead is found by the event it was sent from, the very object: the fold asks about the
 * event the batch holds (a current event is folded as it was read, not copied), whose stream and
 * type are the context the part was opened with, so a part copied into another order's or another
 * type's event (another row of the log, another object) is not found and throws here as it always
 * did. Updates the next event replaces (`replacedByNext`) are not sent. Looking the event up by identity costs no string built and
 * hashed per event, as a name made of its context and sealed part did. A thread that fails leaves
 * every part of its batches to be opened here: the rebuild goes on, on one thread.
 */
export function openAhead(keys: Pick<SubjectKeyStore, 'get' | 'getMany'>, thread: OpeningThreads, ordersHeld = REBUILD_ORDERS_HELD): OpenAhead {
  const known = new Map<string, KeyLookup>()
  const keyOf = (account: string, orderId: string, stream: string): KeyLookup => {
    let key = known.get(stream)
    if (key === undefined && !known.has(stream)) {
      if (known.size >= ordersHeld) known.clear()
      key = keys.get(account, orderId)
      known.set(stream, key)
    }
    return key ?? null
  }
  const opened = new Map<object, string | null>()
  const fallback = rebuildOpener({ get: (account, orderId) => keyOf(account, orderId, streamNameFor(account, orderId)) }, ordersHeld)
  return {
    prepare: async (events) => {
      // Forgotten before, not between, the two passes: every key the second one asks for is held.
      if (known.size + events.length > ordersHeld) known.clear()
      // The parts the fold will ask for, and the orders among them whose key is not held yet, read in one go.
      const parts: Array<{ readonly event: ProjectionEvent; readonly personal: SealedPersonal }> = []
      const wanted = new Map<string, OrderRef>()
      for (const event of events) {
        const { personal } = event.data as { personal?: PersonalPart }
        if (personal === undefined || !isSealed(personal) || replacedByNext(event)) continue
        if (!known.has(event.streamName) && !wanted.has(event.streamName)) {
          const name = parseOrderStreamName(event.streamName)
          if (name === null) continue
          wanted.set(event.streamName, name)
        }
        parts.push({ event, personal })
      }
      if (wanted.size > 0) {
        const found = keys.getMany([...wanted.values()])
        let i = 0
        for (const stream of wanted.keys()) known.set(stream, found[i++] ?? null)
      }
      const items: SealedItem[] = []
      const sent: ProjectionEvent[] = []
      for (const { event, personal } of parts) {
        const key = known.get(event.streamName) ?? null
        if (key === null || key === 'erased' || key.id !== personal.key) continue
        items.push({ key, context: personalContext(event.streamName, event.type), sealed: personal })
        sent.push(event)
      }
      const texts = await thread.open(items).catch((): ReadonlyArray<string | null> => [])
      sent.forEach((event, i) => opened.set(event, texts[i] ?? null))
      return { done: () => { for (const event of sent) opened.delete(event) } }
    },
    open: (account, orderId, event) => {
      const text = opened.get(event)
      if (text !== undefined && text !== null) return openedEvent(event, JSON.parse(text) as Record<string, unknown>)
      return fallback(account, orderId, event)
    },
  }
}
