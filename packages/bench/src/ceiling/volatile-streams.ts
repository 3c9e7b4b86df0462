import { randomUUID } from 'node:crypto'
import { WrongExpectedVersionError, type EventStore, type RecordedEvent } from '@waybill/event-store'

/**
 * The store a ceiling server runs on: streams of `category` live in this process's memory and
 * are never written to disk (no SQLite, no fsync); every other stream (the API keys) is the
 * inner store's. The ingress code above it is unchanged, so a benchmark against it measures
 * everything the service does except making events durable.
 */
export function volatileStreams(inner: EventStore, category = 'order'): EventStore {
  const streams = new Map<string, RecordedEvent[]>()
  const prefix = `${category}-`
  let position = 0n
  const bound = new Map<string | symbol, unknown>()
  return new Proxy(inner, {
    get(target, property) {
      if (property === 'readStream') {
        return async (streamName: string, options: { fromRevision?: number; maxCount?: number } = {}) => {
          if (!streamName.startsWith(prefix)) return target.readStream(streamName, options)
          const events = streams.get(streamName) ?? []
          const from = options.fromRevision ?? 0
          return events.slice(from, options.maxCount === undefined ? undefined : from + options.maxCount)
        }
      }
      if (property === 'appendToStream') {
        return async (...args: Parameters<EventStore['appendToStream']>) => {
          const [streamName, events, options] = args
          if (!streamName.startsWith(prefix)) return target.appendToStream(...args)
          const stream = streams.get(streamName) ?? []
          const current = stream.length - 1
          const expected = options?.expectedRevision ?? 'any'
          const ok = expected === 'any' || (expected === 'no_stream' ? current === -1
            : expected === 'stream_exists' ? current >= 0 : current === expected)
          if (!ok) throw new WrongExpectedVersionError(streamName, expected, current < 0 ? 'no_stream' : current)
          for (const event of events) {
            position += 1n
            stream.push({
              streamName, id: event.id || randomUUID(), type: event.type, data: event.data,
              metadata: { ...event.metadata, prev_hash: null }, revision: stream.length,
              position: { commit: position, prepare: position }, hash: '', createdAt: new Date(),
            })
          }
          streams.set(streamName, stream)
          return { nextExpectedRevision: stream.length - 1, position: { commit: position, prepare: position } }
        }
      }
      const value: unknown = Reflect.get(target, property, target)
      if (typeof value !== 'function') return value
      let method = bound.get(property)
      if (method === undefined) {
        method = (value as (...a: unknown[]) => unknown).bind(target)
        bound.set(property, method)
      }
      return method
    },
  })
}
