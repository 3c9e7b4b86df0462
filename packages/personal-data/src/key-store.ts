import type { OrderKey } from './seal.js'

/** A key to make for an order, unless it has one. */
export interface KeyRequest {
  readonly account: string
  readonly orderId: string
  readonly customer: string
}

/** What the key store holds for an order: its key, or the record that it was destroyed. */
export type KeyLookup = OrderKey | 'erased' | null

/** What an erasure did to one order's key. */
export type KeyErasure = 'erased' | 'already_erased' | 'unknown'

/**
 * The keys that seal personal data (docs/design.md#personal-data), kept apart from the event store
 * and its backups, so that destroying one reaches every copy of the log. Each order has a key of
 * its own, recorded with the order's customer (its data subject): erasing a customer destroys the
 * keys of all the customer's orders, erasing an order destroys one. A destroyed key leaves a
 * record that it was (no secret, no customer), so the order is known erased, not unknown.
 */
export interface SubjectKeyStore {
  /**
   * The order's key; `'erased'` once destroyed; null when the store never had one. Synchronous
   * (one indexed read), so that a projection can open the events of a batch inside its transaction.
   */
  get(account: string, orderId: string): KeyLookup
  /**
   * The order's key, made (durably, before this resolves) when it has none: the first delivery of
   * an order. `customer` is recorded with a new key only; an existing key is returned as it is.
   */
  create(account: string, orderId: string, customer: string): Promise<OrderKey | 'erased'>
  /** `create` for many orders at once, in one transaction (a migration, a load): each order's key, in the order asked. */
  createMany(requests: readonly KeyRequest[]): Promise<Array<OrderKey | 'erased'>>
  /**
   * Destroys the keys of these orders of one account: the secret and the customer are overwritten
   * and the database's journal emptied, so neither survives in the key store's files.
   */
  erase(account: string, orderIds: readonly string[], at: string): Promise<ReadonlyMap<string, KeyErasure>>
  /** The orders of one customer whose keys still exist, in order id order. */
  ordersOf(account: string, customer: string): Promise<readonly string[]>
  /** The customer recorded with an order's key (null: none recorded, or erased). */
  customerOf(account: string, orderId: string): Promise<string | null>
  close(): Promise<void>
}
