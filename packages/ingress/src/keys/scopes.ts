/** What a key may do (DESIGN.md §4). One scope per write event, one for the read API. */
export const SCOPES = ['orders:add', 'orders:update', 'orders:complete', 'orders:cancel', 'orders:read'] as const
export type Scope = (typeof SCOPES)[number]

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value)
}

/** The account a test key is bound to; test keys never see any other. */
export const SANDBOX_ACCOUNT = 'sandbox'

/** Accounts appear inside stream names (`order-<account>-<order_id>`), so no `-` is allowed. */
export const ACCOUNT_PATTERN = /^[a-z0-9_]{1,64}$/

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
