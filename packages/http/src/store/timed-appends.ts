import type { StreamStore } from '@waybill/event-store'
import type { Histogram } from 'prom-client'

/** The store with each append's time to durability (or failure) observed in `histogram`. */
export function timedAppends(inner: StreamStore, histogram: Histogram): StreamStore {
  return {
    readStream: (streamName, options) => inner.readStream(streamName, options),
    appendToStream: async (streamName, events, options) => {
      const end = histogram.startTimer()
      try {
        return await inner.appendToStream(streamName, events, options)
      } finally {
        end()
      }
    },
  }
}
