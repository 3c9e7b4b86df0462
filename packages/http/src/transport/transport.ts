import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { exposedKeysIn, rawHead } from './exposed-keys.js'
import type { RevokeExposed } from './exposure.js'
import { insecureRefusal } from './plain-http.js'
import type { TransportCheck } from './transport-check.js'

interface TransportOptions {
  /** Whether the request came over TLS end to end (see transportCheck). */
  readonly isSecure: TransportCheck
  readonly revokeExposed: RevokeExposed
}

/**
 * Refuses a request that a trusted proxy says came over plain HTTP (X-Forwarded-Proto), after
 * revoking every key its head carried. Plain HTTP that reaches our own listeners never gets here
 * (it is answered from its raw bytes, see plain-http.ts). Its hook is the app's first, before
 * load shedding and the drain check, so that no 503 can answer first and spare a key.
 */
export async function refuseInsecure(request: FastifyRequest, revokeExposed: RevokeExposed): Promise<never> {
  const seen = exposedKeysIn(rawHead(request.raw.method ?? 'GET', request.raw.url ?? '/', request.raw.rawHeaders))
  const revoked = await revokeExposed(seen)
  throw insecureRefusal(seen.length, revoked.length)
}

async function transport(app: FastifyInstance, options: TransportOptions): Promise<void> {
  app.addHook('onRequest', (request, _reply, done) => {
    if (options.isSecure(request.raw)) done()
    else refuseInsecure(request, options.revokeExposed).catch(done)
  })
}

export default fp(transport, { name: 'waybill-transport' })
