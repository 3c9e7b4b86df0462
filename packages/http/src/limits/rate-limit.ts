import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import rateLimit from '@fastify/rate-limit'
import { WaybillError } from '@waybill/domain'

export interface RateLimitOptions {
  /** Requests one key may make per window. */
  readonly max: number
  readonly windowMs: number
}

/**
 * A fixed window per API key (per address for requests without one). It runs after the
 * authentication hook, which is registered first, so the key id is known here.
 */
async function perKeyRateLimit(app: FastifyInstance, options: RateLimitOptions): Promise<void> {
  await app.register(rateLimit, {
    global: true,
    max: options.max,
    timeWindow: options.windowMs,
    keyGenerator: (request) => request.principal?.keyId ?? `ip:${request.ip}`,
    errorResponseBuilder: (_request, context) => new WaybillError('rate_limited',
      `At most ${context.max} requests per ${context.after} for this key; retry after ${Math.ceil(context.ttl / 1000)} s`,
      { headers: { 'retry-after': String(Math.max(1, Math.ceil(context.ttl / 1000))) } }),
  })
}

export default fp(perKeyRateLimit, { name: 'waybill-rate-limit' })
