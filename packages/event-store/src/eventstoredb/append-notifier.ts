import { subscribeAllWithRetry } from './subscribe-with-retry.js'
import type { LiveSource } from './subscribe-with-retry.js'

/** Tells in-process listeners that something was appended to the log, by any writer anywhere. */
export interface AppendNotifier {
  /** Calls `listener` after each new event; the returned function unregisters it. */
  onAppended(listener: () => void): () => void
  stop(): void
}

/**
 * The EventStoreDB counterpart of the SQLite store's in-process append signal, so that a
 * projector that waits for "more" (and polls as a fallback) wakes as soon as any instance
 * writes. One live subscription from the end of the log, opened for the first listener and
 * closed with the last; it re-subscribes with backoff like any other.
 */
export function appendNotifier(source: LiveSource, categories?: readonly string[]): AppendNotifier {
  const listeners = new Set<() => void>()
  let controller: AbortController | null = null
  const stop = (): void => {
    controller?.abort()
    controller = null
  }
  return {
    onAppended(listener) {
      listeners.add(listener)
      if (controller === null) {
        controller = new AbortController()
        void subscribeAllWithRetry(source, {
          after: 'end',
          signal: controller.signal,
          ...(categories !== undefined ? { categories } : {}),
          onEvent: () => { for (const notify of listeners) notify() },
        })
      }
      return () => {
        listeners.delete(listener)
        if (listeners.size === 0) stop()
      }
    },
    stop,
  }
}
