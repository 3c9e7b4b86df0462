import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

/** Two years, as browsers' preload lists expect; only ever sent over HTTPS, which is all we serve. */
const HSTS_MAX_AGE_S = 63_072_000

/**
 * The headers every answer carries: HSTS, `nosniff`, no framing, no referrer, and a
 * Content-Security-Policy that allows nothing (an API answer is never a page; the one page, /docs,
 * sets its own, see docs.ts; the console sets its own after this). These are the headers helmet
 * sends with this configuration, written out once: helmet assembled them anew on every request
 * (about 4% of the ingress' CPU under `pnpm bench`), and none of them depends on the request.
 */
const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': "default-src 'none';frame-ancestors 'none';base-uri 'none';form-action 'none'",
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': `max-age=${HSTS_MAX_AGE_S}; includeSubDomains`,
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'DENY',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
})

/**
 * No answer is stored by a cache unless its route says otherwise (the console's hashed assets):
 * answers carry order data, keys' details and images of people's signatures. Decided on the
 * answer, not on the request's URL, which a client may spell otherwise (`/v%31/orders/…`).
 */
async function securityHeaders(app: FastifyInstance): Promise<void> {
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(SECURITY_HEADERS)
    done()
  })
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store')
    done(null, payload)
  })
}

export default fp(securityHeaders, { name: 'waybill-security-headers' })
