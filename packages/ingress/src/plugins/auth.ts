import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { WaybillError } from '@waybill/domain'
import { parseApiKey, type KeyRing, type Principal } from '@waybill/keys'
import type { TransportCheck } from '../http/transport.js'

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The caller behind the Service-Api-Key header; null on routes that need no key. Handlers
     * check it with `requireScope` / `requirePrincipal` from @waybill/keys.
     */
    principal: Principal | null
  }
  interface FastifyContextConfig {
    /** Route answers without a key (probes, docs); plain HTTP is still refused. */
    public?: boolean
  }
}

export const API_KEY_HEADER = 'service-api-key'

export interface AuthOptions {
  readonly keys: KeyRing
  /** Called with a key seen over plain HTTP, before `insecure_connection` is answered. */
  readonly onKeyExposed: (presented: string, request: FastifyRequest) => Promise<void>
  /** True while the server drains for shutdown: new requests get a retryable 503. */
  readonly isDraining: () => boolean
  /** Whether the request came over TLS end to end (see transportCheck). */
  readonly isSecure: TransportCheck
}

/**
 * Runs in onRequest, before any body byte is read, so a missing or wrong key never makes the
 * server buffer a large body. Order (docs/contract.md#order-of-checks): insecure_connection, api_key_missing,
 * invalid_api_key; the body checks follow once the body is parsed.
 */
async function auth(app: FastifyInstance, options: AuthOptions): Promise<void> {
  app.decorateRequest('principal', null)
  app.addHook('onRequest', async (request) => {
    if (options.isDraining()) {
      throw new WaybillError('server_error', 'The server is shutting down; retry',
        { status: 503, headers: { 'retry-after': '1', connection: 'close' } })
    }
    if (!options.isSecure(request.raw)) await refuseInsecure(request, options.onKeyExposed)
    if (request.is404 || request.routeOptions.config.public === true) return
    const presented = headerValue(request)
    if (presented === null) throw new WaybillError('api_key_missing', 'Send the API key in the Service-Api-Key header')
    const principal = await options.keys.authenticate(presented)
    if (principal === null) throw new WaybillError('invalid_api_key')
    request.principal = principal
  })
}

/**
 * Revokes (and replaces) every key the request exposed in the clear, then refuses it. Every
 * candidate counts: each value of a repeated or comma-joined Service-Api-Key header (Node joins
 * repeated headers with ", "), and the token of an Authorization header, where a confused client
 * may have put the key; any of them that authenticates was seen by the network.
 */
export async function refuseInsecure(request: FastifyRequest, onKeyExposed: AuthOptions['onKeyExposed']): Promise<never> {
  // All at once and all of them, even when one fails (a store hiccup must not spare the rest);
  // the first failure then answers the request instead of insecure_connection.
  const outcomes = await Promise.allSettled([...exposedKeys(request)].map((presented) => onKeyExposed(presented, request)))
  const failed = outcomes.find((outcome) => outcome.status === 'rejected')
  if (failed !== undefined) throw failed.reason
  throw new WaybillError('insecure_connection', 'Use HTTPS. If this request carried an API key, that key is now revoked and replaced; the operator reads the replacement with `waybill keys list`.')
}

/** More candidates than any honest client sends; past it, a header stuffed with keys costs no more reads. */
const MAX_EXPOSED_KEYS = 16

function exposedKeys(request: FastifyRequest): Set<string> {
  const raw = request.headers[API_KEY_HEADER]
  const values = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).flatMap((value) => value.split(','))
  const authorization = request.headers.authorization?.trim().split(/\s+/).pop()
  if (authorization !== undefined) values.push(authorization)
  // Only what has the shape of a key can be one: nothing else costs a store read.
  const keys = values.map((value) => value.trim()).filter((value) => parseApiKey(value) !== null)
  return new Set(keys.slice(0, MAX_EXPOSED_KEYS))
}

function headerValue(request: FastifyRequest): string | null {
  const raw = request.headers[API_KEY_HEADER]
  const value = Array.isArray(raw) ? raw.join(',') : raw
  return value === undefined || value.trim() === '' ? null : value.trim()
}

export default fp(auth, { name: 'waybill-auth' })
