import type { ImageRef } from '@waybill/domain'

/** Read-model lifecycle: the two wire statuses plus the two locked ends. */
export type OrderStatus = 'pending' | 'in_progress' | 'completed' | 'canceled'

/** One row of the `orders` read model: an order's current state as of `revision`. */
export interface OrderRow {
  readonly account: string
  readonly order_id: string
  readonly customer: string
  readonly location: string
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
  /** updated_at as epoch milliseconds, so `updated_since` compares numbers, not ISO texts of unequal precision. */
  readonly updated_at_ms: number
  readonly last_event_type: string
  /** received_at of the stream's last event. */
  readonly received_at: string | null
  readonly revision: number
  /** Events that changed this row; revision + 1 for any stream the decider wrote. */
  readonly event_count: number
  /** Global position (commit) of the stream's last applied event, as decimal text. */
  readonly position: string
}

/** The minimum the projection needs of a stored event. */
export interface ProjectedEvent {
  readonly type: string
  readonly data: Readonly<Record<string, unknown>>
  readonly metadata: Readonly<Record<string, unknown>>
  readonly revision: number
  readonly position: { readonly commit: bigint }
}

const str = (data: Readonly<Record<string, unknown>>, key: string): string => {
  const value = data[key]
  if (typeof value !== 'string') throw new TypeError(`event data lacks string "${key}"`)
  return value
}

const image = (value: unknown): ImageRef | null =>
  value !== null && typeof value === 'object' ? (value as ImageRef) : null

/**
 * Folds one order event into the row. Returns `'unknown'` for an event type the projection does
 * not know (the caller logs and skips it) and the row unchanged for one that cannot apply
 * (an update before the order exists or after it is locked, which the decider never lets through).
 */
export function evolveOrderRow(
  row: OrderRow | undefined,
  account: string,
  orderId: string,
  event: ProjectedEvent,
): OrderRow | undefined | 'unknown' {
  const data = event.data
  const eventDate = str(data, 'event_date')
  const stamp = {
    updated_at: eventDate,
    updated_at_ms: Date.parse(eventDate),
    last_event_type: event.type,
    received_at: typeof event.metadata.received_at === 'string' ? event.metadata.received_at : null,
    revision: event.revision,
    event_count: (row?.event_count ?? 0) + 1,
    position: event.position.commit.toString(),
  }
  // Same rules as the domain's evolve: a change to a missing or locked order changes nothing.
  const changeable = row !== undefined && row.status !== 'completed' && row.status !== 'canceled'
  switch (event.type) {
    case 'OrderAdded':
      if (row !== undefined) return row
      return {
        account, order_id: orderId,
        customer: str(data, 'customer'), location: str(data, 'location'),
        status: str(data, 'status') as OrderStatus,
        address: str(data, 'address'), delivery_date: str(data, 'delivery_date'),
        recipient: null, reason: null, pod: null, signature: null,
        created_at: eventDate, ...stamp,
      }
    case 'OrderUpdated':
      if (!changeable) return row
      return { ...row, status: str(data, 'status') as OrderStatus, address: str(data, 'address'), delivery_date: str(data, 'delivery_date'), ...stamp }
    case 'OrderCompleted':
      if (!changeable) return row
      return {
        ...row, status: 'completed', address: str(data, 'address'), delivery_date: str(data, 'delivery_date'),
        recipient: str(data, 'recipient'), pod: image(data.pod), signature: image(data.signature), ...stamp,
      }
    case 'OrderCanceled':
      if (!changeable) return row
      return { ...row, status: 'canceled', reason: str(data, 'reason'), ...stamp }
    default:
      return 'unknown'
  }
}
