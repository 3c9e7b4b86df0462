import type { Request } from 'autocannon'

/** A real 1×1 PNG: completions carry it as proof of delivery, so image decoding is measured. */
const TINY_PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='

export type Phase = 'add' | 'mix'

// What a connection remembers between the steps of its sequence.
interface StepContext {
  orderId?: string
}

/**
 * The request sequence each autocannon connection loops over. `add`: ORDER_ADD for a new
 * order every time. `mix`: a new order, then its update, then its completion with a PNG pod,
 * so a third of the requests read back a stream of one and two events.
 */
export function workload(phase: Phase, key: string, runId: string): Request[] {
  let next = 0
  const headers = { 'content-type': 'application/json', 'service-api-key': key }
  // autocannon types the per-connection context as a bare `object`; it is the plain object each
  // connection is given empty and passes to every step, so this sequence owns its shape (every
  // member of StepContext is optional, so an `object` is accepted as one).
  const post = (build: (context: StepContext) => unknown): Request => ({
    method: 'POST',
    path: '/v1/deliveries',
    headers,
    setupRequest: (request, context) => ({ ...request, body: JSON.stringify(build(context)) }),
  })
  const add = post((context) => {
    next += 1
    const orderId = `${runId}-${next}`
    context.orderId = orderId
    return {
      event: 'ORDER_ADD', event_date: '2025-03-01T10:00:00Z',
      event_payload: { order_id: orderId, customer: 'bench-customer', location: 'bench-location', status: 'pending', address: '1 Main St', delivery_date: '2025-03-02T10:00:00Z' },
    }
  })
  if (phase === 'add') return [add]
  return [
    add,
    post((context) => ({
      event: 'ORDER_UPDATE', event_date: '2025-03-01T11:00:00Z',
      event_payload: { order_id: context.orderId, status: 'in_progress', address: '2 Main St', delivery_date: '2025-03-03T10:00:00Z' },
    })),
    post((context) => ({
      event: 'ORDER_COMPLETE', event_date: '2025-03-01T12:00:00Z',
      event_payload: { order_id: context.orderId, address: '2 Main St', delivery_date: '2025-03-01T12:00:00Z', recipient: 'Ann Smith', pod: TINY_PNG },
    })),
  ]
}
