import { isOrderEventType, type OrderEventType } from '@waybill/domain'

/** An endpoint as the deliverer and the listings read it. */
export interface Endpoint {
  readonly id: string
  readonly url: string
  /** The one account whose events it gets; null for every account. */
  readonly account: string | null
  /** The stored event types it gets; null for every order event. */
  readonly events: readonly OrderEventType[] | null
  readonly createdAt: string
  /** Null while enabled. */
  readonly disabledAt: string | null
  readonly disabledReason: string | null
  /** Epoch ms before which nothing is sent (a receiver's Retry-After on 429 or 503); null when none. */
  readonly holdUntil: number | null
  readonly lastSuccessAt: string | null
  /** Epoch ms of the first failed attempt since the last delivered one; null while the last attempt delivered. */
  readonly failingSince: number | null
}

/** A row of the `endpoints` table. */
export interface EndpointRecord {
  readonly id: string
  readonly url: string
  readonly account: string | null
  readonly events: string | null
  readonly created_at: string
  readonly disabled_at: string | null
  readonly disabled_reason: string | null
  readonly hold_until: number | null
  readonly last_success_at: string | null
  readonly failing_since: number | null
  readonly pending: number
}

export function endpointOf(record: EndpointRecord): Endpoint {
  return {
    id: record.id,
    url: record.url,
    account: record.account,
    events: record.events === null ? null : record.events.split(',').filter(isOrderEventType),
    createdAt: record.created_at,
    disabledAt: record.disabled_at,
    disabledReason: record.disabled_reason,
    holdUntil: record.hold_until,
    lastSuccessAt: record.last_success_at,
    failingSince: record.failing_since,
  }
}

/**
 * Whether an endpoint gets an event of `type` in `account`. An erasure goes to every endpoint of
 * the account whatever its event filter: a receiver that holds an order's personal data is told
 * to erase it (docs/personal-data.md#what-an-erasure-reaches).
 */
export function endpointWants(endpoint: Pick<Endpoint, 'account' | 'events'>, account: string, type: string): boolean {
  if (!isOrderEventType(type)) return false
  if (endpoint.account !== null && endpoint.account !== account) return false
  return endpoint.events === null || type === 'PersonalDataErased' || endpoint.events.includes(type)
}
