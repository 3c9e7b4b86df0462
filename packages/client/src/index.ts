import createClient, { type Client, type ClientOptions } from 'openapi-fetch'
import type { components, paths } from './openapi.js'

export type { components, operations, paths } from './openapi.js'

/** A delivery event body, as the OpenAPI document names it. */
export type DeliveryRequest = components['schemas']['DeliveryRequest']
/** An error answer (RFC 9457 problem details with Waybill's `code`). */
export type Problem = components['schemas']['Problem']
/** An order as GET /v1/orders/{order_id} answers it. */
export type Order = components['schemas']['Order']

export interface WaybillClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** The server's HTTPS address, e.g. https://localhost:8443 */
  readonly baseUrl: string
  /** Sent as Service-Api-Key on every request. */
  readonly apiKey: string
}

/** A typed client of the Waybill API: `client.POST('/v1/deliveries', { body })`, `client.GET('/v1/orders/{order_id}', …)`. */
export function createWaybillClient(options: WaybillClientOptions): Client<paths> {
  const { apiKey, headers, ...rest } = options
  return createClient<paths>({ ...rest, headers: { ...(headers as Record<string, string> | undefined), 'service-api-key': apiKey } })
}

/**
 * A delivery as `application/x-www-form-urlencoded` (`event_payload[field]=…`, the document's
 * deepObject encoding), every value percent-encoded (a base64 `+` is sent as `%2B`). Pass it as
 * `bodySerializer` with the header `content-type: application/x-www-form-urlencoded`.
 */
export function formBody(body: DeliveryRequest): string {
  const form = new URLSearchParams({ event: body.event, event_date: body.event_date })
  for (const [field, value] of Object.entries(body.event_payload)) {
    if (typeof value === 'string') form.append(`event_payload[${field}]`, value)
  }
  return form.toString()
}
