import { deliveryImages, streamNameFor, toCommand, type OrderCommand, type ValidDelivery } from '@waybill/domain'
import type { SubjectKeyStore } from './key-store.js'
import { orderSealer, type SealedBlob } from './order-sealer.js'

/** A delivery ready for the command handler, or why there is nothing to seal it with. */
export type SealedDelivery =
  | {
    readonly ok: true
    /** The command, its event's personal part sealed and its deterministic id taken over the sealed form. */
    readonly command: OrderCommand
    /** The sealed images, to be stored before the event that names them is appended. */
    readonly blobs: readonly SealedBlob[]
  }
  /** No key: the order does not exist (`not_found`), or its personal data was erased (`erased`). */
  | { readonly ok: false; readonly refusal: 'not_found' | 'erased' }

/**
 * Seals a valid delivery with its order's key (docs/design.md#personal-data): an ORDER_ADD makes
 * the key (durably, recorded with its customer) unless the order has one; any other event finds
 * it. The one place a delivery meets its key, for the HTTP route and for every tool and test that
 * writes orders as it does.
 */
export async function sealDelivery(keys: Pick<SubjectKeyStore, 'get' | 'create'>, account: string, valid: ValidDelivery): Promise<SealedDelivery> {
  const orderId = valid.payload.order_id
  const key = valid.event === 'ORDER_ADD' ? await keys.create(account, orderId, valid.payload.customer) : keys.get(account, orderId)
  if (key === 'erased') return { ok: false, refusal: 'erased' }
  if (key === null) return { ok: false, refusal: 'not_found' }
  const sealer = orderSealer(key, streamNameFor(account, orderId))
  return { ok: true, blobs: sealer.blobs(deliveryImages(valid)), command: toCommand(account, valid, sealer) }
}
