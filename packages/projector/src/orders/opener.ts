import { isWireStatus, openedEvent, streamNameFor, type OpenedOrderEvent, type OrderEvent } from '@waybill/domain'
import type { FollowedBy } from '@waybill/event-store'
import { openOrderEvent, orderEventOpener, type SubjectKeyStore } from '@waybill/personal-data'
import type { EventOpener } from './fold.js'

/**
 * Opens events with the key store's keys, looked up per event (one indexed read): a key destroyed
 * by `waybill erase` in another process is never used from a memory of it.
 */
export function keyStoreOpener(keys: Pick<SubjectKeyStore, 'get'>): EventOpener {
  return (account, orderId, event) => openOrderEvent(streamNameFor(account, orderId), event, keys.get(account, orderId))
}

/** One account's orders, each with its events' opener. */
type OrderOpeners = Map<string, (event: OrderEvent) => OpenedOrderEvent>

/** Orders whose key a rebuild holds at once; past it, it forgets them all and looks up again. */
export const REBUILD_ORDERS_HELD = 100_000

/**
 * A rebuild's opener: each order's key looked up once and its encryption key derived once for
 * all its events, instead of a key-store read per event and keys derived again whenever the
 * shared cache of the orders being written (4,096) no longer holds them (together over a third
 * of a rebuild's CPU, measured). Held for this rebuild only. A key `waybill erase` destroys meanwhile
 * may still open events of its order here, but only events before the order's
 * `PersonalDataErased` (the erasure appends it before it destroys the key), which empties the
 * row when the rebuild, or after the swap the live projector, reads it.
 */
export function rebuildOpener(keys: Pick<SubjectKeyStore, 'get'>, ordersHeld = REBUILD_ORDERS_HELD): EventOpener {
  let held = 0
  const accounts = new Map<string, OrderOpeners>()
  return (account, orderId, event) => {
    let orders = accounts.get(account)
    if (orders === undefined) accounts.set(account, orders = new Map() as OrderOpeners)
    let open = orders.get(orderId)
    if (open === undefined) {
      if (held >= ordersHeld) {
        accounts.clear()
        accounts.set(account, orders = new Map() as OrderOpeners)
        held = 0
      }
      open = orderEventOpener(streamNameFor(account, orderId), keys.get(account, orderId))
      orders.set(orderId, open)
      held += 1
    }
    return open(event)
  }
}

/**
 * What a rebuild need not open (docs/design.md#read-model-generations-and-rebuild): an update's
 * personal part is its address alone, and when the next event of its order is an update or a
 * completion, the fold sets the row's address again from that one. It applies it whenever it
 * applied the update with a wire status (nothing comes between the two events, and that status
 * does not lock the order), and a rebuild reads on to it before it ends: the rows are the same
 * without the update's part. The store marks such updates (`followedBy`); about 45% of the
 * parts of `pnpm bench:rebuild`'s log.
 */
export const REPLACED_BY_NEXT: FollowedBy = { of: ['OrderUpdated'], next: ['OrderUpdated', 'OrderCompleted'] }

/**
 * Whether the fold may take `event` without opening it. The fold hands the opener the event as
 * it was read (a current event is not copied), so the store's mark is on it.
 */
export function replacedByNext(event: { readonly type: string; readonly data: unknown; readonly followed?: boolean }): boolean {
  return event.followed === true && event.type === 'OrderUpdated' && isWireStatus((event.data as { readonly status?: unknown }).status)
}

/** A rebuild's opener that leaves the address of an update the next event replaces unopened (null until that event sets it). */
export function skippingReplaced(open: EventOpener): EventOpener {
  return (account, orderId, event) => replacedByNext(event) ? openedEvent(event, {}) : open(account, orderId, event)
}
