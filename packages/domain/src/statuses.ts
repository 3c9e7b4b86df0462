/** The values the wire `status` field accepts (ORDER_ADD and ORDER_UPDATE). */
export const WIRE_STATUSES = ['pending', 'in_progress'] as const
export type WireStatus = (typeof WIRE_STATUSES)[number]

/** Where an order ends once it can no longer change (docs/contract.md#states-and-transitions). */
export const LOCKED_STATUSES = ['completed', 'canceled'] as const
export type LockedStatus = (typeof LOCKED_STATUSES)[number]

/** The locked status each locking event leaves an order in, for every fold of order events. */
export const STATUS_AFTER = { OrderCompleted: 'completed', OrderCanceled: 'canceled' } as const satisfies Record<string, LockedStatus>

/** Every state an order can be in: the two wire statuses and the two locked ends. */
export const ORDER_STATUSES = [...WIRE_STATUSES, ...LOCKED_STATUSES] as const
export type OrderStatus = (typeof ORDER_STATUSES)[number]

const LOCKED: readonly unknown[] = LOCKED_STATUSES
const WIRE: readonly unknown[] = WIRE_STATUSES

/** Completed and canceled orders can no longer be modified: the lock rule's one home. */
export function isLocked(status: OrderStatus): status is LockedStatus {
  return LOCKED.includes(status)
}

export function isWireStatus(value: unknown): value is WireStatus {
  return WIRE.includes(value)
}
