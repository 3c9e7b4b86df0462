import { WaybillError } from '@waybill/domain'
import type { Scope } from './scopes.js'

/**
 * The authenticated caller: what `KeyRing.authenticate` answers for a valid key. Routes use
 * `account` to scope what they write and show.
 */
export interface Principal {
  readonly keyId: string
  readonly account: string
  readonly scopes: readonly Scope[]
  readonly test: boolean
}

/** The principal; throws `api_key_missing` when there is none (a route that skipped authentication). */
export function requirePrincipal(principal: Principal | null): Principal {
  if (principal === null) throw new WaybillError('api_key_missing')
  return principal
}

/**
 * The principal when its key holds `scope`; throws `api_key_forbidden` otherwise, and
 * `api_key_missing` when there is no principal. Framework-free, so the ingress' routes and the
 * read API share one check.
 */
export function requireScope(principal: Principal | null, scope: Scope): Principal {
  const caller = requirePrincipal(principal)
  if (!caller.scopes.includes(scope)) throw new WaybillError('api_key_forbidden', `This key lacks the ${scope} scope`)
  return caller
}
