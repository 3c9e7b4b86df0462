import { isSealed, openedEvent, type OpenedOrderEvent, type OrderEvent } from '@waybill/domain'
import { personalContext } from './order-sealer.js'
import { openJson, type OrderKey } from './seal.js'

/**
 * An order event of `stream` as a reader sees it: its personal part opened with the order's key,
 * or its personal fields null when the key was destroyed (`'erased'`). A part written in plain
 * form (before sealing, read through the upcaster) is read as it is. Throws SealBrokenError when a
 * sealed part does not open with the key it names (tampering, not erasure), and MissingKeyError
 * when the key store has no record of the order at all: a key store that is not this data's
 * (a wrong WAYBILL_SUBJECT_KEY_DIR) must not make every order read as erased.
 */
export function openOrderEvent(stream: string, event: OrderEvent, key: OrderKey | 'erased' | null): OpenedOrderEvent {
  if (event.type === 'PersonalDataErased') return openedEvent(event, null)
  const { personal } = event.data
  if (!isSealed(personal)) return openedEvent(event, personal.plain)
  if (key === null) throw new MissingKeyError(stream, personal.key)
  if (key === 'erased') return openedEvent(event, null)
  return openedEvent(event, openJson(key, personalContext(stream, event.type), personal))
}

/** A sealed event whose order the key store does not know. */
export class MissingKeyError extends Error {
  constructor(readonly stream: string, readonly keyId: string) {
    super(`no key ${keyId} for ${stream} in the subject key store: is WAYBILL_SUBJECT_KEY_DIR the one this data was written with?`)
    this.name = 'MissingKeyError'
  }
}
