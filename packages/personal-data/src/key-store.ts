import type { OrderKey } from './seal.js'

/** A key to make for an order, unless it has one. */
export interface KeyRequest {
  readonly account: string
  readonly orderId: string
  readonly customer: string
}

/** An order, named within its account. */
export interface OrderRef {
  readonly account: string
  readonly orderId: string
}

/** What the key store holds for an order: its key, or the record that it was destroyed. */
export type KeyLookup = OrderKey | 'erased' | null

/** What an erasure did to one order's key. */
export type KeyErasure = 'erased' | 'already_erased' | 'unknown'

/** Why and when keys are destroyed, kept on each destroyed key's record (never a personal value). */
export interface ErasureNote {
  readonly at: string
  readonly scope: 'customer' | 'order' | 'retention'
  readonly requestedBy: string
  readonly reason: string
}

/** A destroyed key's record: which order, and the note it was destroyed with. */
export interface ErasedKey extends ErasureNote {
  readonly account: string
  readonly orderId: string
}

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
   * `get` for many orders in one read: each order's lookup, in the order asked. A rebuild asks
   * for the keys of a batch's new orders at once (one query, not one per order).
   */
  getMany(orders: readonly OrderRef[]): KeyLookup[]
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
  erase(account: string, orderIds: readonly string[], note: ErasureNote): Promise<ReadonlyMap<string, KeyErasure>>
  /**
   * Whether this customer's keys were destroyed: known by a tag of the customer keyed with a
   * secret of the key store (so the tag confirms no guess without that secret), never the
   * customer itself. Lets a second erasure of a customer say it was done.
   */
  customerErased(account: string, customer: string): Promise<boolean>
  /** Every destroyed key's record, for putting the erasures back into a log restored from before them. */
  erasures(): Promise<readonly ErasedKey[]>
  /** The orders of one customer whose keys still exist, in order id order. */
  ordersOf(account: string, customer: string): Promise<readonly string[]>
  /** The customer recorded with an order's key (null: none recorded, or erased). */
  customerOf(account: string, orderId: string): Promise<string | null>
  close(): Promise<void>
}
