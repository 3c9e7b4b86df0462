/**
 * The one catalogue of error codes Waybill answers with: the specification's eleven plus our
 * own four (docs/contract.md#error-codes). The ingress turns a `WaybillError` into an RFC 9457 problem body; the HTTP
 * status lives here because it is part of the published contract, like the codes themselves.
 */
export const ERROR_CATALOGUE = {
  insecure_connection: { status: 403, title: 'Plain HTTP is not accepted' },
  api_key_missing: { status: 401, title: 'No API key in the Service-Api-Key header' },
  invalid_api_key: { status: 401, title: 'The API key is not valid' },
  api_key_forbidden: { status: 403, title: 'The API key lacks the scope for this action' },
  no_body: { status: 400, title: 'The request body is empty' },
  unknown_event: { status: 400, title: 'The event is missing or not one of the four known events' },
  bad_request: { status: 400, title: 'The request is malformed' },
  not_found: { status: 404, title: 'No such order, route or resource' },
  method_not_allowed: { status: 405, title: 'The path does not accept this method' },
  locked: { status: 409, title: 'The order is completed or canceled and can no longer be modified' },
  conflict: { status: 409, title: 'An order with this order_id already exists' },
  too_many_events: { status: 409, title: 'The order holds as many events as an order may; it can only be completed or canceled' },
  payload_too_large: { status: 413, title: 'The request body is too large' },
  unsupported_media_type: { status: 415, title: 'The content type is not supported' },
  rate_limited: { status: 429, title: 'Too many requests for this API key' },
  server_error: { status: 500, title: 'Internal server error' },
} as const satisfies Record<string, { status: number; title: string }>

export type ErrorCode = keyof typeof ERROR_CATALOGUE

/** The order rules a decision can break (docs/contract.md#states-and-transitions). */
export type DomainErrorCode = Extract<ErrorCode, 'not_found' | 'locked' | 'conflict' | 'too_many_events'>

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CATALOGUE, value)
}

export interface WaybillErrorOptions {
  /** Extra response headers, e.g. Retry-After. */
  readonly headers?: Readonly<Record<string, string>>
  /**
   * Overrides the catalogue's status. Used for one case only: a `server_error` answered as 503
   * (with Retry-After) when the store is full or unreachable, so that clients which only know
   * the specification's codes still see `server_error` while the status tells them the failure is passing.
   */
  readonly status?: 503
  readonly cause?: unknown
  /** Every field problem of a refused body (the problem body's `errors`); the detail names the first. */
  readonly errors?: readonly FieldError[]
}

/** One field a request got wrong, as a problem body lists it: a JSON pointer into the body and why. */
export interface FieldError {
  readonly pointer: string
  /** The same place as a dotted name (`event_payload.order_id`), as the problem's `detail` names it. */
  readonly field: string
  readonly detail: string
}

/** An error answered to a client: a code from the catalogue and a human detail. */
export class WaybillError extends Error {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly errors: readonly FieldError[]
  constructor(
    readonly code: ErrorCode,
    readonly detail?: string,
    options: WaybillErrorOptions = {},
  ) {
    super(detail ?? ERROR_CATALOGUE[code].title, { cause: options.cause })
    this.name = 'WaybillError'
    this.status = options.status ?? ERROR_CATALOGUE[code].status
    this.headers = options.headers ?? {}
    this.errors = options.errors ?? []
  }
}
