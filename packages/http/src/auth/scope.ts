import type { preValidationHookHandler } from 'fastify'
import { AUDIT_SCOPE, requireReadAccess, requireScope, type ReadAccess } from '@waybill/keys'

declare module 'fastify' {
  interface FastifyRequest {
    /** How the caller reads orders; set by `readAccess` on the read routes, null elsewhere. */
    reader: ReadAccess | null
  }
}

/**
 * The read routes' scope check (an ordinary key reads its own account with orders:read, an
 * auditor key any account with orders:audit), as a route-level preValidation hook: Fastify runs
 * it after parsing and before the route's schema validates, which is where the contract puts
 * api_key_forbidden (docs/contract.md#order-of-checks). Callback style: no promise per request.
 * It sets `request.reader`.
 */
export const readAccess: preValidationHookHandler = (request, _reply, done) => {
  try {
    request.reader = requireReadAccess(request.principal)
    done()
  } catch (error) {
    done(error as Error)
  }
}

/**
 * The auditor routes' scope check (the webhook routes): the key must hold `orders:audit`, which
 * only keys of every account (`*`) can; any other key is `api_key_forbidden`. A preValidation hook,
 * as `readAccess` is.
 */
export const auditorAccess: preValidationHookHandler = (request, _reply, done) => {
  try {
    requireScope(request.principal, AUDIT_SCOPE)
    done()
  } catch (error) {
    done(error as Error)
  }
}
