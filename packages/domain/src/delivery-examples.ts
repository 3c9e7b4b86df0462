import type { DeliveryRequest } from './delivery-schema.js'
import type { WireEvent } from './commands.js'

/** A 1×1 PNG: the smallest image the ORDER_COMPLETE example can carry and the service accept. */
const PNG_1X1 = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='

/**
 * One real body per event: the OpenAPI document's examples and the tests'. ORDER_ADD, ORDER_UPDATE
 * and ORDER_COMPLETE are one order's events, accepted when sent in that order. ORDER_CANCELED
 * cancels another order (a completed one is locked), so it is accepted only after an ORDER_ADD
 * of that order: sent alone it answers 404 not_found. The document adds that ORDER_ADD example.
 */
export const DELIVERY_EXAMPLES = {
  ORDER_ADD: {
    event: 'ORDER_ADD',
    event_date: '2026-03-02T08:15:00Z',
    event_payload: {
      order_id: 'ORD-20260302-0042', customer: 'CUST-1187', location: 'LOC-1187-HOME', status: 'pending',
      address: 'Keizersgracht 123, 1015 CJ Amsterdam', delivery_date: '2026-03-03T14:00:00Z',
    },
  },
  ORDER_UPDATE: {
    event: 'ORDER_UPDATE',
    event_date: '2026-03-03T09:30:00Z',
    event_payload: {
      order_id: 'ORD-20260302-0042', status: 'in_progress',
      address: 'Keizersgracht 123, 1015 CJ Amsterdam', delivery_date: '2026-03-03T15:30:00Z',
    },
  },
  ORDER_COMPLETE: {
    event: 'ORDER_COMPLETE',
    event_date: '2026-03-03T15:41:07Z',
    event_payload: {
      order_id: 'ORD-20260302-0042', address: 'Keizersgracht 123, 1015 CJ Amsterdam', delivery_date: '2026-03-03T15:41:07Z',
      pod: PNG_1X1, recipient: 'J. de Vries', signature: PNG_1X1,
    },
  },
  ORDER_CANCELED: {
    event: 'ORDER_CANCELED',
    event_date: '2026-03-02T10:05:00Z',
    event_payload: { order_id: 'ORD-20260302-0043', reason: 'Customer canceled the order by phone' },
  },
} as const satisfies Record<WireEvent, DeliveryRequest>
