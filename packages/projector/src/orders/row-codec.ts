import type { ImageMediaType, ImageRef, OrderStatus } from '@waybill/domain'
import type { OrderRow } from './order-row.js'

/** The orders table's columns, flat: images are split into three columns each. */
export interface OrderRecord {
  account: string
  order_id: string
  customer: string
  location: string
  status: string
  address: string | null
  delivery_date: string | null
  recipient: string | null
  reason: string | null
  pod_sha256: string | null
  pod_media_type: string | null
  pod_bytes: number | null
  signature_sha256: string | null
  signature_media_type: string | null
  signature_bytes: number | null
  created_at: string
  updated_at: string
  updated_at_key: string
  last_event_type: string
  received_at: string | null
  revision: number
  event_count: number
  position: string
}

export const ORDER_COLUMNS = [
  'account', 'order_id', 'customer', 'location', 'status', 'address', 'delivery_date', 'recipient', 'reason',
  'pod_sha256', 'pod_media_type', 'pod_bytes', 'signature_sha256', 'signature_media_type', 'signature_bytes',
  'created_at', 'updated_at', 'updated_at_key', 'last_event_type', 'received_at', 'revision', 'event_count', 'position',
] as const

/** The row as values in ORDER_COLUMNS order, for a positional INSERT (no intermediate object). */
export function toColumns(row: OrderRow): unknown[] {
  const { pod, signature } = row
  return [
    row.account, row.order_id, row.customer, row.location, row.status, row.address, row.delivery_date, row.recipient, row.reason,
    pod?.sha256 ?? null, pod?.media_type ?? null, pod?.bytes ?? null,
    signature?.sha256 ?? null, signature?.media_type ?? null, signature?.bytes ?? null,
    row.created_at, row.updated_at, row.updated_at_key, row.last_event_type, row.received_at, row.revision, row.event_count, row.position,
  ]
}

const imageOf = (sha256: string | null, mediaType: string | null, bytes: number | null): ImageRef | null =>
  sha256 === null || mediaType === null || bytes === null ? null : { sha256, media_type: mediaType as ImageMediaType, bytes }

export function fromRecord(record: OrderRecord): OrderRow {
  const {
    pod_sha256, pod_media_type, pod_bytes, signature_sha256, signature_media_type, signature_bytes, status, ...rest
  } = record
  return {
    ...rest,
    status: status as OrderStatus,
    pod: imageOf(pod_sha256, pod_media_type, pod_bytes),
    signature: imageOf(signature_sha256, signature_media_type, signature_bytes),
  }
}
