import type { ImageRef, OrderStatus } from '@waybill/domain'

/**
 * One row of the `orders` read model: an order's current state as of `revision`. The one shape
 * the fold, the writer, the reader and `verifyOrders` share; the table's columns (`OrderRecord`)
 * and the API's answer (`OrderView`) are derived from their own schemas and mapped from this.
 */
export interface OrderRow {
  readonly account: string
  readonly order_id: string
  /** Null once erased (and for an order whose events' keys were destroyed before it was projected). */
  readonly customer: string | null
  readonly location: string | null
  readonly status: OrderStatus
  readonly address: string | null
  readonly delivery_date: string | null
  readonly recipient: string | null
  readonly reason: string | null
  readonly pod: ImageRef | null
  readonly signature: ImageRef | null
  /** event_date of OrderAdded. */
  readonly created_at: string
  /** event_date of the stream's last event (events may be dated out of order; this is stream order). */
  readonly updated_at: string
  /** updated_at as fixed-width text (`timestampKey`), so `updated_since` compares exactly, to the nanosecond. */
  readonly updated_at_key: string
  readonly last_event_type: string
  /** received_at of the stream's last event. */
  readonly received_at: string | null
  readonly revision: number
  /** Events that changed this row; revision + 1 for any stream the decider wrote. */
  readonly event_count: number
  /** Global position (commit) of the stream's last applied event, as decimal text. */
  readonly position: string
  /** When the order's personal data was erased (its PersonalDataErased), else null. */
  readonly erased_at: string | null
}
