import type { WireEvent } from '@waybill/domain'

/**
 * What a key of one account may do: one scope per write event, one for the read API
 * (docs/contract.md#scopes). `--scopes all` and the sandbox key mean these five.
 */
export const SCOPES = ['orders:add', 'orders:update', 'orders:complete', 'orders:cancel', 'orders:read'] as const

/**
 * The auditor's scope: reads the orders, history and images of every account, writes nothing. It
 * belongs only to keys of the `*` account (`ALL_ACCOUNTS`), and such keys hold nothing that
 * writes (the issue rules, `issue-rules.ts`).
 */
export const AUDIT_SCOPE = 'orders:audit'

/** The scopes a key of the `*` account may hold: those that only read. */
export const READ_ONLY_SCOPES: readonly Scope[] = ['orders:read', AUDIT_SCOPE]

export type Scope = (typeof SCOPES)[number] | typeof AUDIT_SCOPE

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value) || value === AUDIT_SCOPE
}

/** The scope a key needs to send each wire event. */
export const SCOPE_FOR_EVENT: Readonly<Record<WireEvent, Scope>> = {
  ORDER_ADD: 'orders:add',
  ORDER_UPDATE: 'orders:update',
  ORDER_COMPLETE: 'orders:complete',
  ORDER_CANCELED: 'orders:cancel',
}
