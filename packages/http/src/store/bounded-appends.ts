import { StoreUnavailableError, type StreamStore } from '@waybill/event-store'

export interface AppendBounds {
  /** Appends waiting on the store at once; past it new ones fail at once with 503. Default 1,024. */
  readonly maxPendingAppends?: number
  /** Longest wait for one append before answering 503 (the append may still land; a retry is exact). Default 2,000 ms. */
  readonly appendTimeoutMs?: number
}

const DEFAULTS = { maxPendingAppends: 1024, appendTimeoutMs: 2000 }

/**
 * The store with a bound on appends in flight and on the wait for each. A slow or stuck store
 * (another process holding the lock, a stalled disk) then costs a client at most
 * `appendTimeoutMs`, and the queue in front of the writer never grows past `maxPendingAppends`:
 * a timed-out append keeps its slot until the store settles it, so timeouts cannot hide an
 * ever-growing backlog. A 503 is never an acknowledgment; event ids are deterministic, so the
 * client's retry of an append that did land later answers the original success.
 */
export function boundedAppends(inner: StreamStore, bounds: AppendBounds = {}): StreamStore {
  const limit = bounds.maxPendingAppends ?? DEFAULTS.maxPendingAppends
  const timeoutMs = bounds.appendTimeoutMs ?? DEFAULTS.appendTimeoutMs
  let pending = 0
  return {
    readStream: (streamName, options) => inner.readStream(streamName, options),
    appendToStream: (streamName, events, options) => {
      if (pending >= limit) {
        return Promise.reject(new StoreUnavailableError(`${pending} appends already wait for the event store`))
      }
      pending += 1
      // One promise and one timer per append (a race of two promises and a finally made four).
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new StoreUnavailableError(`the event store did not answer within ${timeoutMs} ms`)), timeoutMs)
        inner.appendToStream(streamName, events, options).then((result) => {
          pending -= 1
          clearTimeout(timer)
          resolve(result)
        }, (error: unknown) => {
          pending -= 1
          clearTimeout(timer)
          reject(error instanceof Error ? error : new Error(String(error)))
        })
      })
    },
  }
}
