import { isSealed, openedEvent, type OpenedOrderEvent, type OrderEvent, type SealedPersonal } from '@waybill/domain'
import { personalContext } from './order-sealer.js'
import type { KeyLookup } from './key-store.js'
import { jsonOpener, openJson, type OrderKey } from './seal.js'

/**
 * An order event of `stream` as a reader sees it: its personal part opened with the order's key,
 * or its personal fields null when the key was destroyed (`'erased'`). A part written in plain
 * form (before sealing, read through the upcaster) is read as it is. Throws SealBrokenError when a
 * sealed part does not open with the key it names (tampering, not erasure), and MissingKeyError
 * when the key store has no record of the order at all: a key store that is not this data's
 * (a wrong WAYBILL_SUBJECT_KEY_DIR) must not make every order read as erased.
 */
export function openOrderEvent(stream: string, event: OrderEvent, key: OrderKey | 'erased' | null): OpenedOrderEvent {
  return openWith(stream, event, key, openJson)
}

/**
 * `openOrderEvent` for many events of one order (a rebuild reads every event of every order): the
 * key looked up once by the caller, and its encryption key derived on the first sealed part and
 * held by the function returned only, not by the cache of the orders being written.
 */
export function orderEventOpener(stream: string, key: KeyLookup): (event: OrderEvent) => OpenedOrderEvent {
  let open: ((context: string, sealed: SealedPersonal) => Record<string, unknown>) | null = null
  const openSealed = (found: OrderKey, context: string, sealed: SealedPersonal): Record<string, unknown> => (open ??= jsonOpener(found))(context, sealed)
  return (event) => openWith(stream, event, key, openSealed)
}

function openWith(stream: string, event: OrderEvent, key: KeyLookup,
  open: (key: OrderKey, context: string, sealed: SealedPersonal) => Record<string, unknown>): OpenedOrderEvent {
  if (event.type === 'PersonalDataErased') return openedEvent(event, null)
  const { personal } = event.data
  if (!isSealed(personal)) return openedEvent(event, personal.plain)
  if (key === null) throw new MissingKeyError(stream, personal.key)
  if (key === 'erased') return openedEvent(event, null)
  return openedEvent(event, open(key, personalContext(stream, event.type), personal))
}

/** A sealed event whose order the key store does not know. */
export class MissingKeyError extends Error {
  constructor(readonly stream: string, readonly keyId: string) {
    super(`no key ${keyId} for ${stream} in the subject key store: is WAYBILL_SUBJECT_KEY_DIR the one this data was written with?`)
    this.name = 'MissingKeyError'
  }
}
