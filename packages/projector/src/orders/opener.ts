import { streamNameFor, type OpenedOrderEvent, type OrderEvent } from '@waybill/domain'
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
