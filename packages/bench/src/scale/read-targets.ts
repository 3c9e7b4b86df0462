import { encodeCursor } from '@waybill/http'
import type { ReadRequest } from './read-load.js'
import { accountOf, customerOf, dateAt, addedAt, LOCATIONS, orderIdOf, scatter } from './shape.js'

/** The reads the scale bench times, in the order of its table. */
export const READS = ['order', 'list', 'status', 'customer', 'location', 'updated_since', 'deep_cursor', 'events', 'proof'] as const
export type ReadName = (typeof READS)[number]

export const READ_LABELS: Readonly<Record<ReadName, string>> = {
  order: 'GET /v1/orders/{id}',
  list: 'GET /v1/orders (first page)',
  status: 'GET /v1/orders?status=in_progress',
  customer: 'GET /v1/orders?customer=…',
  location: 'GET /v1/orders?location=…',
  updated_since: 'GET /v1/orders?updated_since=(last day)',
  deep_cursor: 'GET /v1/orders?cursor=(last quarter)',
  events: 'GET /v1/orders/{id}/events',
  proof: 'GET /v1/orders/{id}/proof',
}

/**
 * The i-th order of a read: spread over the whole log by the golden ratio, so any number of
 * requests covers it evenly, old orders and new, each account in its share.
 */
const orderFor = (i: number, orders: number): number => Math.floor(((i * 0.6180339887498949) % 1) * orders)

/** A page far into a list: the next order from n on whose id sorts in the last quarter of the ids. */
function deepOrder(n: number, orders: number): number {
  for (let m = n; ; m = (m + 1) % orders) if (scatter(m) >= 0xc000_0000) return m
}

/**
 * The i-th request of a read on a store of `orders` orders, sent with the key of the account of
 * the order it is about (`keys`: a key per account). Lists ask for their first page (50 orders)
 * of that account, filtered on that order's status, customer, depot or the last day of the
 * history; the deep cursor pages on from an order in the last quarter of the account's ids.
 */
export function readRequest(read: ReadName, i: number, orders: number, keys: Readonly<Record<string, string>>): ReadRequest {
  const n = read === 'deep_cursor' ? deepOrder(orderFor(i, orders), orders) : orderFor(i, orders)
  const key = keys[accountOf(n)] ?? ''
  const id = orderIdOf(n)
  const lastDay = dateAt(addedAt(orders) - 86_400)
  const paths: Record<ReadName, string> = {
    order: `/v1/orders/${id}`,
    list: '/v1/orders',
    status: '/v1/orders?status=in_progress',
    customer: `/v1/orders?customer=${customerOf(n)}`,
    location: `/v1/orders?location=depot-${n % LOCATIONS}`,
    updated_since: `/v1/orders?updated_since=${lastDay}`,
    deep_cursor: `/v1/orders?cursor=${encodeCursor(id, {})}`,
    events: `/v1/orders/${id}/events`,
    proof: `/v1/orders/${id}/proof`,
  }
  return { path: paths[read], key }
}
