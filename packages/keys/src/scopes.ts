import type { WireEvent } from '@waybill/domain'

/** What a key may do: one scope per write event, one for the read API (docs/design.md, "API keys"). */
export const SCOPES = ['orders:add', 'orders:update', 'orders:complete', 'orders:cancel', 'orders:read'] as const
export type Scope = (typeof SCOPES)[number]

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value)
}

/** The scope a key needs to send each wire event. */
export const SCOPE_FOR_EVENT: Readonly<Record<WireEvent, Scope>> = {
  ORDER_ADD: 'orders:add',
  ORDER_UPDATE: 'orders:update',
  ORDER_COMPLETE: 'orders:complete',
  ORDER_CANCELED: 'orders:cancel',
}
