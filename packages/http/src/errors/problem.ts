import { ERROR_CATALOGUE, WaybillError, type ErrorCode } from '@waybill/domain'
import type { Problem } from '@waybill/domain/wire'
import { StoreUnavailableError, WrongExpectedVersionError } from '@waybill/event-store'
import { redactKeyTokens } from '@waybill/keys'
import { NotReadyError } from './not-ready.js'

// Where each code is described; `/errors/<code>` answers a short text without a key.
function problemType(code: ErrorCode): string {
  return `/errors/${code}`
}

const FASTIFY_CODES: Readonly<Record<string, ErrorCode>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'no_body',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'bad_request',
}

/**
 * Any thrown value as a WaybillError: ours pass through, Fastify's own client errors map to the
 * nearest code, a store outage is a retryable 503 `server_error`, anything else a plain 500.
 */
export function toWaybillError(error: unknown): WaybillError {
  if (error instanceof WaybillError) return error
  if (error instanceof StoreUnavailableError) {
    return new WaybillError('server_error', 'The event store is unavailable; retry later',
      { status: 503, headers: { 'retry-after': '5' }, cause: error })
  }
  // The command handler gave up after several lost races on one stream: passing contention.
  if (error instanceof WrongExpectedVersionError) {
    return new WaybillError('server_error', 'The order is being changed concurrently; retry',
      { status: 503, headers: { 'retry-after': '1' }, cause: error })
  }
  const fastifyCode = typeof (error as { code?: unknown } | null | undefined)?.code === 'string' ? (error as { code: string }).code : ''
  const mapped = FASTIFY_CODES[fastifyCode]
  if (mapped !== undefined) return new WaybillError(mapped, undefined, { cause: error })
  const status = (error as { statusCode?: unknown } | null | undefined)?.statusCode
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new WaybillError('bad_request', (error as Error).message, { cause: error })
  }
  return new WaybillError('server_error', undefined, { cause: error })
}

/** What a passing failure (503) tells the client: that it passes, never what failed inside. */
const UNAVAILABLE_DETAIL = 'The service cannot take this request right now; retry after the Retry-After delay'

/**
 * The problem body of an error. A 5xx never carries the error's own detail (which may name a
 * file, a blob or a cause): a 500 says its title, a 503 that it will pass; the log has the rest.
 * Readiness's 503 alone says why (`NotReadyError`: written to be public).
 * Whatever echoes the request (a detail naming an order id or a path, the path itself) has every
 * key-shaped token cut to its prefix: a key put where an order id goes is not repeated back, nor
 * written to the log, which logs this body's detail.
 */
export function problemFor(error: WaybillError, instance: string, requestId: string): Problem {
  const title = ERROR_CATALOGUE[error.code].title
  const detail = error instanceof NotReadyError ? error.detail ?? title
    : error.status === 503 ? UNAVAILABLE_DETAIL : error.status >= 500 ? title : redactKeyTokens(error.detail ?? title)
  return {
    type: problemType(error.code),
    title,
    status: error.status,
    detail,
    code: error.code,
    instance: redactKeyTokens(instance),
    request_id: requestId,
    // Every field problem of a refused body, each with its JSON pointer (RFC 9457 §3.2 extension).
    ...(error.status < 500 && error.errors.length > 0
      ? { errors: error.errors.map((field) => ({ ...field, detail: redactKeyTokens(field.detail) })) }
      : {}),
  }
}

/** What the log says of a refusal: its code and its detail, keys cut as in the answer. */
export function refusalLogFields(error: WaybillError): { readonly code: string; readonly detail: string | undefined } {
  return { code: error.code, detail: error.detail === undefined ? undefined : redactKeyTokens(error.detail) }
}
