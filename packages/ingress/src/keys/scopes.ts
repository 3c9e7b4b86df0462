/** What a key may do (DESIGN.md §4). One scope per write event, one for the read API. */
export const SCOPES = ['orders:add', 'orders:update', 'orders:complete', 'orders:cancel', 'orders:read'] as const
export type Scope = (typeof SCOPES)[number]

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value)
}

export { ACCOUNT_PATTERN, SANDBOX_ACCOUNT } from '@waybill/domain'

/**
 * The authenticated caller, set on every request that passed the key check. Read routes
 * (the projector's read API) use `account` to scope what they show.
 */
export interface Principal {
  readonly keyId: string
  readonly account: string
  readonly scopes: readonly Scope[]
  readonly test: boolean
}
