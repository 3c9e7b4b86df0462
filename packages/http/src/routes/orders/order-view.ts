import type { OrderRow } from '@waybill/projector'
import type { OrderView } from './schemas.js'

/**
 * An order row as the read API answers an ordinary key: the shape `OrderSchema` documents,
 * checked by the compiler. No account (the caller's key already says which) and no global
 * position (it would show the activity of every other account).
 */
export function orderView(row: OrderRow): OrderView {
  return {
    order_id: row.order_id,
    customer: row.customer,
    location: row.location,
    status: row.status,
    address: row.address,
    delivery_date: row.delivery_date,
    recipient: row.recipient,
    reason: row.reason,
    pod: row.pod,
    signature: row.signature,
    created_at: row.created_at,
    updated_at: row.updated_at,
    received_at: row.received_at,
    last_event: row.last_event_type,
    revision: row.revision,
    erased_at: row.erased_at,
  }
}

/** The same for an auditor key, which reads every account: with the order's account and position. */
export function auditedOrderView(row: OrderRow): OrderView {
  return { ...orderView(row), account: row.account, position: row.position }
}
