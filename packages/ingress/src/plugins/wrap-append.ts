import type { EventStore } from '@waybill/event-store'

/**
 * The same store with `appendToStream` replaced. Every other member is the inner store's, bound
 * to it: the adapters keep their state in private fields, which a prototype-based wrapper would
 * not reach.
 */
export function wrapAppend(inner: EventStore, appendToStream: EventStore['appendToStream']): EventStore {
  // Bound once per member, not on every call: readStream runs on every request.
  const bound = new Map<string | symbol, unknown>()
  return new Proxy(inner, {
    get(target, property) {
      if (property === 'appendToStream') return appendToStream
      const value: unknown = Reflect.get(target, property, target)
      if (typeof value !== 'function') return value
      let method = bound.get(property)
      if (method === undefined) {
        method = (value as (...args: unknown[]) => unknown).bind(target)
        bound.set(property, method)
      }
      return method
    },
  })
}
