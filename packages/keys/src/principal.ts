import { ALL_ACCOUNTS, WaybillError } from '@waybill/domain'
import { AUDIT_SCOPE, type Scope } from './scopes.js'

/**
 * The authenticated caller: what `KeyRing.authenticate` answers for a valid key. Routes use
 * `account` to scope what they write and show; an auditor key's is `*` (`ALL_ACCOUNTS`), which no
 * stream name can hold, and the read API reads it through `requireReadAccess`.
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

/**
 * How a key reads orders: an ordinary key within its own account, an auditor key (account `*`)
 * in any account, which the request then names.
 */
export type ReadAccess =
  | { readonly auditor: false; readonly keyId: string; readonly account: string }
  | { readonly auditor: true; readonly keyId: string }

/**
 * The read API's one check. A key of the `*` account reads every account, and needs
 * `orders:audit` for it; every other key reads its own account with `orders:read`, exactly as
 * before auditors existed. A key that lacks its scope gets `api_key_forbidden`.
 */
export function requireReadAccess(principal: Principal | null): ReadAccess {
  const caller = requirePrincipal(principal)
  if (caller.account === ALL_ACCOUNTS) return { auditor: true, keyId: requireScope(caller, AUDIT_SCOPE).keyId }
  return { auditor: false, keyId: caller.keyId, account: requireScope(caller, 'orders:read').account }
}
