import { hash } from 'node:crypto'
import type { DecodedImage, DeliverySealer, StoredImageRef } from '@waybill/domain'
import { sealImage, sealJson, type OrderKey } from './seal.js'

/** What a sealed part of an order event is bound to: the order's stream and the event's type. */
export const personalContext = (stream: string, type: string): string => `${stream}\n${type}`
/** What an image of an order is bound to. */
export const imageContext = (stream: string): string => `${stream}\nimage`

/** A sealed image, ready for the blob store: its bytes and their sha256, the blob's name. */
export interface SealedBlob {
  readonly sha256: string
  readonly bytes: Buffer
}

/**
 * Seals one delivery of the order whose stream is `stream` with the order's key: the personal
 * part of its event and each image it carries. `blobs` are the sealed images, to be stored before
 * the event that names them is appended.
 */
export function orderSealer(key: OrderKey, stream: string): DeliverySealer & { blobs(images: readonly DecodedImage[]): SealedBlob[] } {
  const sealed = new Map<string, SealedBlob>()
  const blobOf = (image: DecodedImage): SealedBlob => {
    let blob = sealed.get(image.sha256)
    if (blob === undefined) {
      const bytes = sealImage(key, imageContext(stream), image.bytes)
      blob = { sha256: hash('sha256', bytes, 'hex'), bytes }
      sealed.set(image.sha256, blob)
    }
    return blob
  }
  return {
    personal: (type, fields) => sealJson(key, personalContext(stream, type), fields),
    // Keys in canonical order, as toCommand writes the event's data (canonicalJson's fast path).
    image: (image): StoredImageRef => ({ blob: blobOf(image).sha256, bytes: image.bytes.length, media_type: image.media_type }),
    blobs: (images) => images.map(blobOf),
  }
}
