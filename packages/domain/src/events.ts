import type { WireStatus } from './statuses.js'

/** An image as a client sees it: the sha256 of its bytes, its media type and size. */
export interface ImageRef {
  readonly sha256: string
  readonly media_type: ImageMediaType
  readonly bytes: number
}

export type ImageMediaType = 'image/jpeg' | 'image/png' | 'image/webp'

/**
 * An image as an event keeps it: the name of its blob (the sha256 of the bytes stored, which are
 * sealed with the order's key, so the name says nothing about the image), its media type and the
 * size of the image itself. The image's own sha256 is personal and sealed with the other fields.
 */
export interface StoredImageRef {
  readonly blob: string
  readonly media_type: ImageMediaType
  readonly bytes: number
}

/**
 * The personal fields of one event, sealed with the key of the order's data subject
 * (docs/design.md#personal-data): `key` names the key, `iv` and `box` (ciphertext and tag) are
 * base64url. Only the key's holder reads them; once the key is destroyed nobody can.
 */
export interface SealedPersonal {
  readonly key: string
  readonly iv: string
  readonly box: string
}

/** The personal fields of an event written in plain form before sealing existed (schema version 1), as the upcaster lifts them. */
export interface PlainPersonal {
  readonly plain: Readonly<Record<string, unknown>>
}

export type PersonalPart = SealedPersonal | PlainPersonal

export function isSealed(personal: PersonalPart): personal is SealedPersonal {
  return !('plain' in personal)
}

// The fields of each event as a courier sends them and a reader sees them: the plain form.

export interface OrderAddedFields {
  readonly order_id: string
  readonly customer: string
  readonly location: string
  readonly status: WireStatus
  readonly address: string
  readonly delivery_date: string
  readonly event_date: string
}

export interface OrderUpdatedFields {
  readonly order_id: string
  readonly status: WireStatus
  readonly address: string
  readonly delivery_date: string
  readonly event_date: string
}

export interface OrderCompletedFields {
  readonly order_id: string
  readonly address: string
  readonly delivery_date: string
  readonly recipient: string
  readonly pod: ImageRef
  readonly signature?: ImageRef
  readonly event_date: string
}

export interface OrderCanceledFields {
  readonly order_id: string
  readonly reason: string
  readonly event_date: string
}

// What each event keeps in its sealed part: the personal fields, images by their sha256.

export interface OrderAddedPersonal {
  readonly customer: string
  readonly location: string
  readonly address: string
}

export interface OrderUpdatedPersonal {
  readonly address: string
}

export interface OrderCompletedPersonal {
  readonly address: string
  readonly recipient: string
  readonly pod: string
  readonly signature?: string
}

export interface OrderCanceledPersonal {
  readonly reason: string
}

// The data each event stores: what is not personal, in the open, and the personal part sealed.

export interface OrderAddedData {
  readonly order_id: string
  readonly status: WireStatus
  readonly delivery_date: string
  readonly event_date: string
  readonly personal: PersonalPart
}

export interface OrderUpdatedData {
  readonly order_id: string
  readonly status: WireStatus
  readonly delivery_date: string
  readonly event_date: string
  readonly personal: PersonalPart
}

export interface OrderCompletedData {
  readonly order_id: string
  readonly delivery_date: string
  readonly pod: StoredImageRef
  readonly signature?: StoredImageRef
  readonly event_date: string
  readonly personal: PersonalPart
}

export interface OrderCanceledData {
  readonly order_id: string
  readonly event_date: string
  readonly personal: PersonalPart
}

/** Why an order's personal data was erased: an operator's request, or the retention period. */
export type ErasureScope = 'customer' | 'order' | 'retention'

/**
 * The record of an erasure, in the order's own stream and so in the signed log. It holds no
 * personal data: who asked, when, why, and whether the whole customer or this order was erased.
 */
export interface PersonalDataErasedData {
  readonly order_id: string
  readonly erased_at: string
  readonly scope: ErasureScope
  readonly requested_by: string
  readonly reason: string
}

/** Metadata every stored order event carries (docs/design.md#events-and-metadata); the store adds `prev_hash`. */
export interface OrderEventMetadata {
  readonly received_at: string
  readonly key_id: string
  readonly request_id: string
  readonly schema_version: number
}

interface Event<Type extends string, Data> {
  readonly type: Type
  readonly data: Data
}

export type OrderAdded = Event<'OrderAdded', OrderAddedData>
export type OrderUpdated = Event<'OrderUpdated', OrderUpdatedData>
export type OrderCompleted = Event<'OrderCompleted', OrderCompletedData>
export type OrderCanceled = Event<'OrderCanceled', OrderCanceledData>
export type PersonalDataErased = Event<'PersonalDataErased', PersonalDataErasedData>

/** The facts stored in an order stream, as the current schema version writes them. */
export type OrderEvent = OrderAdded | OrderUpdated | OrderCompleted | OrderCanceled | PersonalDataErased

/** The stored order event types: the one home of this list. */
export const ORDER_EVENT_TYPES = ['OrderAdded', 'OrderUpdated', 'OrderCompleted', 'OrderCanceled', 'PersonalDataErased'] as const satisfies ReadonlyArray<OrderEvent['type']>

export type OrderEventType = (typeof ORDER_EVENT_TYPES)[number]

export function isOrderEventType(type: string): type is OrderEventType {
  return (ORDER_EVENT_TYPES as readonly string[]).includes(type)
}

/**
 * The schema version this Waybill writes. 1: personal fields in plain form. 2: personal fields
 * sealed (`personal`), images as sealed blobs (`StoredImageRef`), and `PersonalDataErased`.
 */
export const SCHEMA_VERSION = 2
