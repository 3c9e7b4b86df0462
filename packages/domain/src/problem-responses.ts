import { ERROR_CATALOGUE, type ErrorCode } from './errors.js'
import { ProblemSchema } from './problem.js'

/**
 * What every route may answer before its own checks (docs/contract.md#order-of-checks): shutdown
 * or overload (503), plain HTTP seen through a trusted proxy, a per-address limit, a path that
 * cannot be decoded, an internal failure.
 */
const EVERY_ROUTE: readonly ErrorCode[] = ['insecure_connection', 'bad_request', 'rate_limited', 'server_error']
/** What a route behind the key check adds (steps 4 to 6, and the scope of the route). */
const KEYED_ROUTE: readonly ErrorCode[] = ['api_key_missing', 'invalid_api_key', 'api_key_forbidden']

/** Why a `server_error` is a 503: the causes of docs/contract.md#temporary-failures, said once. */
const UNAVAILABLE = 'server_error: a passing failure (the store is unreachable or full, too many appends wait, a write race, shutdown, overload); send the same request again after Retry-After'

/**
 * Whose limit a 429 is: the catalogue's title names the key, but a route without one is limited
 * per client address only (docs/contract.md#rate-limits).
 */
const RATE_LIMITED = {
  keyed: 'rate_limited: Too many requests for this API key or from this client address; send the same request again after Retry-After',
  keyless: 'rate_limited: Too many requests from this client address; send the same request again after Retry-After',
} as const

/** The problem body's schema, described as the response of one status. */
type ProblemResponse = typeof ProblemSchema & { readonly description: string }

/**
 * The error answers of one route, for its OpenAPI document: one response per status, whose
 * description lists the codes the route can answer with that status, so that a client generated
 * from the document knows each status and what it means. A route lists the codes of its own
 * checks; the ones every route (and every keyed route) shares are added here.
 */
export function problemResponses(codes: readonly ErrorCode[], options: { readonly keyed: boolean }): Record<number, ProblemResponse> {
  const all = new Set<ErrorCode>([...EVERY_ROUTE, ...(options.keyed ? KEYED_ROUTE : []), ...codes])
  const byStatus = new Map<number, string[]>()
  for (const code of Object.keys(ERROR_CATALOGUE) as ErrorCode[]) {
    if (!all.has(code)) continue
    const status = ERROR_CATALOGUE[code].status
    byStatus.set(status, [...(byStatus.get(status) ?? []), `${code}: ${ERROR_CATALOGUE[code].title}`])
  }
  byStatus.set(429, [options.keyed ? RATE_LIMITED.keyed : RATE_LIMITED.keyless])
  byStatus.set(503, [UNAVAILABLE])
  const responses: Record<number, ProblemResponse> = {}
  for (const [status, lines] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[status] = { ...ProblemSchema, description: `Problem body (application/problem+json). Codes: ${lines.join('; ')}` }
  }
  return responses
}
