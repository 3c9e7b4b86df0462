import { randomBytes, randomUUID } from 'node:crypto'
import type { ErasedKey, KeyErasure, KeyLookup, SubjectKeyStore } from './key-store.js'
import type { OrderKey } from './seal.js'

/** A key store in memory, for unit tests: the same contract as the SQLite one (test/contract.ts). */
export function openMemoryKeyStore(): SubjectKeyStore & { count(): number } {
  const keys = new Map<string, { id: string; secret: Buffer | null; customer: string | null }>()
  // In memory nothing outlives the process: the erased customers are kept as they are.
  const erasedCustomers = new Set<string>()
  const erased: ErasedKey[] = []
  const name = (account: string, orderId: string) => `${account}\0${orderId}`
  const lookup = (account: string, orderId: string): KeyLookup => {
    const entry = keys.get(name(account, orderId))
    return entry === undefined ? null : entry.secret === null ? 'erased' : { id: entry.id, secret: entry.secret }
  }
  return {
    get: lookup,
    getMany: (orders) => orders.map((order) => lookup(order.account, order.orderId)),
    create(account, orderId, customer) {
      if (!keys.has(name(account, orderId))) keys.set(name(account, orderId), { id: randomUUID(), secret: randomBytes(32), customer })
      return Promise.resolve(lookup(account, orderId) as NonNullable<KeyLookup>)
    },
    async createMany(requests) {
      const made: Array<OrderKey | 'erased'> = []
      for (const request of requests) made.push(await this.create(request.account, request.orderId, request.customer))
      return made
    },
    erase(account, orderIds, note) {
      return Promise.resolve(new Map(orderIds.map((orderId): [string, KeyErasure] => {
        const entry = keys.get(name(account, orderId))
        if (entry === undefined) return [orderId, 'unknown']
        if (entry.secret === null) return [orderId, 'already_erased']
        if (entry.customer !== null) erasedCustomers.add(name(account, entry.customer))
        erased.push({ account, orderId, ...note })
        keys.set(name(account, orderId), { id: entry.id, secret: null, customer: null })
        return [orderId, 'erased']
      })))
    },
    ordersOf: (account, customer) => Promise.resolve([...keys.entries()]
      .filter(([key, entry]) => key.startsWith(`${account}\0`) && entry.customer === customer)
      .map(([key]) => key.slice(account.length + 1))
      .sort()),
    customerOf: (account, orderId) => Promise.resolve(keys.get(name(account, orderId))?.customer ?? null),
    customerErased: (account, customer) => Promise.resolve(erasedCustomers.has(name(account, customer))),
    erasures: () => Promise.resolve([...erased]),
    count: () => keys.size,
    close: () => Promise.resolve(),
  }
}
