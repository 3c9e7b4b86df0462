import { isSealed, openedEvent, parseOrderStreamName, streamNameFor, type PersonalPart, type SealedPersonal } from '@waybill/domain'
import type { ProjectionEvent } from '@waybill/event-store'
import { personalContext, type KeyLookup, type OpeningThreads, type SealedItem, type SubjectKeyStore } from '@waybill/personal-data'
import type { EventOpener } from './fold.js'
import { rebuildOpener, REBUILD_ORDERS_HELD } from './opener.js'

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

/** What a part opened ahead is found by: its context and the whole sealed part. */
const nameOf = (context: string, sealed: SealedPersonal): string => `${context}\u0000${sealed.key}\u0000${sealed.iv}\u0000${sealed.box}`

/**
 * Opening on the second core (docs/design.md#read-model-generations-and-rebuild): each order's
 * key is looked up once here (for the thread and for the parts opened here alike) and sent with
 * its parts; what the thread could not open (a changed part, a key that does not match) is opened
 * here, and throws here what it throws. A part opened ahead is found by everything it was opened
 * with: the context of the event asking (its stream and type), the key id, the nonce and the box,
 * so a part copied into another order's or another type's event is not found and throws here as
 * it always did. A thread that fails leaves every part of its batches to be opened here: the
 * rebuild goes on, on one thread.
 */
export function openAhead(keys: Pick<SubjectKeyStore, 'get'>, thread: OpeningThreads, ordersHeld = REBUILD_ORDERS_HELD): OpenAhead {
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
  const opened = new Map<string, string | null>()
  const fallback = rebuildOpener({ get: (account, orderId) => keyOf(account, orderId, streamNameFor(account, orderId)) }, ordersHeld)
  return {
    prepare: async (events) => {
      const items: SealedItem[] = []
      for (const event of events) {
        const { personal } = event.data as { personal?: PersonalPart }
        if (personal === undefined || !isSealed(personal)) continue
        const name = parseOrderStreamName(event.streamName)
        if (name === null) continue
        const key = keyOf(name.account, name.orderId, event.streamName)
        if (key === null || key === 'erased' || key.id !== personal.key) continue
        items.push({ key, context: personalContext(event.streamName, event.type), sealed: personal })
      }
      const texts = await thread.open(items).catch((): ReadonlyArray<string | null> => [])
      const names = items.map((item) => nameOf(item.context, item.sealed))
      names.forEach((name, i) => opened.set(name, texts[i] ?? null))
      return { done: () => { for (const name of names) opened.delete(name) } }
    },
    open: (account, orderId, event) => {
      if (event.type !== 'PersonalDataErased' && isSealed(event.data.personal)) {
        const text = opened.get(nameOf(personalContext(streamNameFor(account, orderId), event.type), event.data.personal))
        if (text !== undefined && text !== null) return openedEvent(event, JSON.parse(text) as Record<string, unknown>)
      }
      return fallback(account, orderId, event)
    },
  }
}
