import type { RequestStep } from 'autocannon'

/** A real 1×1 PNG: completions carry it as proof of delivery, so image decoding is measured. */
const TINY_PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='

export type Phase = 'add' | 'mix'

/**
 * The request sequence each autocannon connection loops over. `add`: ORDER_ADD for a new
 * order every time. `mix`: a new order, then its update, then its completion with a PNG pod,
 * so a third of the requests read back a stream of one and two events.
 */
export function workload(phase: Phase, key: string, runId: string): RequestStep[] {
  let next = 0
  const headers = { 'content-type': 'application/json', 'service-api-key': key }
  const post = (build: (context: Record<string, unknown>) => unknown): RequestStep => ({
    method: 'POST',
    path: '/v1/deliveries',
    headers,
    setupRequest: (request, context) => ({ ...request, body: JSON.stringify(build(context)) }),
  })
  const add = post((context) => {
    next += 1
    const orderId = `${runId}-${next}`
    context['orderId'] = orderId
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
      event_payload: { order_id: context['orderId'], status: 'in_progress', address: '2 Main St', delivery_date: '2025-03-03T10:00:00Z' },
    })),
    post((context) => ({
      event: 'ORDER_COMPLETE', event_date: '2025-03-01T12:00:00Z',
      event_payload: { order_id: context['orderId'], address: '2 Main St', delivery_date: '2025-03-01T12:00:00Z', recipient: 'Ann Smith', pod: TINY_PNG },
    })),
  ]
}
