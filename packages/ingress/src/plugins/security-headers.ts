import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import helmet from '@fastify/helmet'

/** Two years, as browsers' preload lists expect; only ever sent over HTTPS, which is all we serve. */
const HSTS_MAX_AGE_S = 63_072_000

/**
 * The headers every answer carries: HSTS, `nosniff`, no framing, no referrer, and a
 * Content-Security-Policy that allows nothing (an API answer is never a page; the one page, /docs,
 * sets its own, see docs.ts). Answers under /v1/ carry order data and are never stored by a cache.
 */
async function securityHeaders(app: FastifyInstance): Promise<void> {
  await app.register(helmet, {
    hsts: { maxAge: HSTS_MAX_AGE_S, includeSubDomains: true },
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"] },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    crossOriginResourcePolicy: { policy: 'same-origin' },
  })
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.url.startsWith('/v1/')) reply.header('cache-control', 'no-store')
    done(null, payload)
  })
}

export default fp(securityHeaders, { name: 'waybill-security-headers' })
