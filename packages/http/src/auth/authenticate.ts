import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { WaybillError } from '@waybill/domain'
import type { KeyRing, Principal } from '@waybill/keys'
import { FixedWindowCounts } from '../limits/fixed-window.js'
import { RefusalCache } from './refusal-cache.js'

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

interface AuthOptions {
  readonly keys: KeyRing
  /** True while the server drains for shutdown: new requests get a retryable 503. */
  readonly isDraining: () => boolean
  /** False on a server without the sandbox: test keys are refused. */
  readonly acceptTestKeys: boolean
  /** Refused keys one client address may present per window before it is refused unheard. */
  readonly failedKeys: FailedKeyLimit
}

export interface FailedKeyLimit {
  readonly max: number
  readonly windowMs: number
}

/**
 * Runs in onRequest, before any body byte is read, so a missing or wrong key never makes the
 * server buffer a large body. Order (docs/contract.md#order-of-checks): the transport plugin has
 * refused plain HTTP already; then the drain check, api_key_missing, invalid_api_key; the body
 * checks follow once the body is parsed.
 */
async function auth(app: FastifyInstance, options: AuthOptions): Promise<void> {
  const refusals = new RefusalCache()
  const failures = new FixedWindowCounts(options.failedKeys.windowMs)
  const refuse = (address: string, detail: string): WaybillError => {
    failures.add(address)
    return new WaybillError('invalid_api_key', detail)
  }
  app.decorateRequest('principal', null)
  app.decorateRequest('reader', null)
  app.addHook('onRequest', async (request) => {
    if (options.isDraining()) {
      throw new WaybillError('server_error', 'The server is shutting down; retry',
        { status: 503, headers: { 'retry-after': '1', connection: 'close' } })
    }
    if (request.is404 || request.routeOptions.config.public === true) return
    const presented = headerValue(request.headers[API_KEY_HEADER])
    if (presented === null) throw new WaybillError('api_key_missing', 'Send the API key in the Service-Api-Key header')
    // An address that keeps presenting keys that do not work is guessing, or misconfigured: it is
    // refused before any lookup until its window ends (docs/contract.md#rate-limits).
    if (failures.get(request.ip) >= options.failedKeys.max) {
      const seconds = failures.secondsLeft()
      throw new WaybillError('rate_limited', `Too many refused API keys from this address; retry after ${seconds} s`,
        { headers: { 'retry-after': String(seconds) } })
    }
    const known = refusals.get(presented)
    if (known !== undefined) throw refuse(request.ip, known)
    const principal = await options.keys.authenticate(presented)
    if (principal !== null && (options.acceptTestKeys || !principal.test)) {
      request.principal = principal
      return
    }
    const detail = principal === null ? await whyInvalid(options.keys, presented) : 'Test keys are not accepted by this server'
    refusals.set(presented, detail)
    throw refuse(request.ip, detail)
  })
}

/**
 * The detail of a refused key: when it was revoked because it crossed the network in the clear,
 * say so and when, so the courier knows to fetch the replacement rather than retry. Only to the
 * holder of the whole key: the id alone (in every history entry and log line) learns nothing.
 */
async function whyInvalid(keys: KeyRing, presented: string): Promise<string> {
  const record = await keys.findByKey(presented)
  if (record?.reason === 'insecure_connection' && record.revokedAt !== null) {
    return `This key was revoked at ${record.revokedAt} because it was sent over plain HTTP; ask the operator for its replacement`
  }
  return 'The API key is not valid'
}

function headerValue(raw: string | string[] | undefined): string | null {
  const value = Array.isArray(raw) ? raw.join(',') : raw
  return value === undefined || value.trim() === '' ? null : value.trim()
}

export default fp(auth, { name: 'waybill-auth' })
