import type { EventStore } from '@waybill/event-store'

/**
 * The same store with `appendToStream` replaced. Every other member is the inner store's, bound
 * to it: the adapters keep their state in private fields, which a prototype-based wrapper would
 * not reach.
 */
export function wrapAppend(inner: EventStore, appendToStream: EventStore['appendToStream']): EventStore {
  return new Proxy(inner, {
    get(target, property) {
      if (property === 'appendToStream') return appendToStream
      const value: unknown = Reflect.get(target, property, target)
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value
    },
  })
}
