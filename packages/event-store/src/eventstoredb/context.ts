import type { EventStoreDBClient } from '@eventstore/db-client'

/** What every call of the adapter needs: the client and the deadline Waybill gives reads. */
export interface EsdbContext {
  readonly client: EventStoreDBClient
  readonly readTimeoutMs: number
}

/**
 * Options of every read: from the leader. After a leader change a follower may trail it, and a
 * read that decides (an order's state, whether a key is revoked, the predecessor of an append)
 * must see every acknowledged append.
 */
export const FROM_LEADER = { requiresLeader: true } as const
