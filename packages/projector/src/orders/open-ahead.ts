import { isSealed, openedEvent, parseOrderStreamName, streamNameFor, type PersonalPart } from '@waybill/domain'
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
  /** Looks up, in one read, the keys of the orders of `events` with a sealed part whose key is not known yet. */
  const lookUpNew = (events: readonly ProjectionEvent[]): void => {
    const wanted = new Map<string, OrderRef>()
    for (const event of events) {
      if (known.has(event.streamName) || wanted.has(event.streamName)) continue
      const { personal } = event.data as { personal?: PersonalPart }
      if (personal === undefined || !isSealed(personal)) continue
      const name = parseOrderStreamName(event.streamName)
      if (name !== null) wanted.set(event.streamName, name)
    }
    if (wanted.size === 0) return
    if (known.size + wanted.size > ordersHeld) known.clear()
    const found = keys.getMany([...wanted.values()])
    let i = 0
    for (const stream of wanted.keys()) known.set(stream, found[i++] ?? null)
  }
  const opened = new Map<object, string | null>()
  const fallback = rebuildOpener({ get: (account, orderId) => keyOf(account, orderId, streamNameFor(account, orderId)) }, ordersHeld)
  return {
    prepare: async (events) => {
      lookUpNew(events)
      const items: SealedItem[] = []
      const sent: ProjectionEvent[] = []
      for (const event of events) {
        const { personal } = event.data as { personal?: PersonalPart }
        if (personal === undefined || !isSealed(personal) || replacedByNext(event)) continue
        const name = parseOrderStreamName(event.streamName)
        if (name === null) continue
        const key = keyOf(name.account, name.orderId, event.streamName)
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
