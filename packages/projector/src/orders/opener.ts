import { streamNameFor } from '@waybill/domain'
import { openOrderEvent, type SubjectKeyStore } from '@waybill/personal-data'
import type { EventOpener } from './fold.js'

/**
 * Opens events with the key store's keys, looked up per event (one indexed read): a key destroyed
 * by `waybill erase` in another process is never used from a memory of it.
 */
export function keyStoreOpener(keys: Pick<SubjectKeyStore, 'get'>): EventOpener {
  return (account, orderId, event) => openOrderEvent(streamNameFor(account, orderId), event, keys.get(account, orderId))
}
