import type { OrderStatus } from './statuses.js'

/** No OrderAdded in the stream yet. */
export interface NoOrder {
  readonly exists: false
  /** Ids of the events already in the stream, oldest first (for exact-retry detection). */
  readonly eventIds: readonly string[]
}

/**
 * An order, as far as the rules need it: its status, whether its personal data was erased, and
 * the ids of its events. Nothing personal: the decider decides on sealed events without opening
 * them, so the write path never reads a personal value back (docs/design.md#personal-data).
 */
export interface ExistingOrder {
  readonly exists: true
  readonly eventIds: readonly string[]
  readonly status: OrderStatus
  /** After PersonalDataErased: the order takes no event any more. */
  readonly erased: boolean
}

/** The state `decide` reads: `exists` tells the two cases apart. */
export type OrderState = NoOrder | ExistingOrder

export function initialState(): OrderState {
  return { exists: false, eventIds: [] }
}
