import type { Position, RecordedEvent } from '../port.js'
import { backoffDelay, type BackoffPolicy } from '../backoff.js'
import { sleep } from '../sleep.js'
import { categoryPrefixes } from './category-filter.js'

/** One live read of the global log: every event after `after`, then new ones as they come. */
export interface LiveSubscriptionRequest {
  /** Strictly after this position; null: from the beginning; `end`: only what is appended from now on. */
  readonly after: Position | null | 'end'
  readonly categories?: readonly string[]
  /** Aborting ends the iteration quietly. */
  readonly signal: AbortSignal
}

/** Something that can follow the global log live; the EventStoreDB store is one. */
export interface LiveSource {
  /** Ends or throws when the subscription drops; it does not come back by itself. */
  subscribeAll(request: LiveSubscriptionRequest): AsyncIterable<RecordedEvent>
}

/** Options of `subscribeAllWithRetry`. */
export interface SubscribeAllOptions {
  /**
   * Start strictly after this position (the projector's checkpoint); from the beginning when
   * absent; `end` for only what is appended from now on (a drop before the first event then
   * resumes from the end of that moment).
   */
  readonly after?: Position | null | 'end'
  /** Only these categories (e.g. `['order', 'key']`); every user stream when absent. */
  readonly categories?: readonly string[]
  /** Called once per event, in order; the next event waits for it. A throw re-subscribes after backoff. */
  onEvent(event: RecordedEvent): Promise<void> | void
  /** Aborting stops the subscription; the returned promise then resolves. */
  readonly signal: AbortSignal
  /** Told about each drop (an error, or the subscription ending) and the wait before the next attempt. */
  onRetry?(reason: unknown, delayMs: number): void
  readonly backoff?: BackoffPolicy
}

/**
 * Follows the global log until `signal` aborts, re-subscribing with exponential backoff each
 * time the subscription errors or ends (the client library does not), always from the last
 * position `onEvent` finished with, so nothing is skipped and nothing handled twice.
 */
export async function subscribeAllWithRetry(source: LiveSource, options: SubscribeAllOptions): Promise<void> {
  const { signal, categories } = options
  // A bad category would fail every attempt; say so now instead of retrying forever.
  if (categories !== undefined) categoryPrefixes(categories)
  let after: Position | null | 'end' = options.after ?? null
  let failures = 0
  while (!signal.aborted) {
    let reason: unknown = new Error('subscription ended')
    try {
      for await (const event of source.subscribeAll({ after, signal, ...(categories !== undefined ? { categories } : {}) })) {
        await options.onEvent(event)
        after = event.position
        failures = 0
      }
    } catch (error) {
      reason = error
    }
    // The signal may have aborted during the awaits above; TypeScript keeps the narrowing of
    // the loop's test across them (microsoft/TypeScript#9998).
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- see above
    if (signal.aborted) break
    const delayMs = backoffDelay(failures, options.backoff)
    failures += 1
    options.onRetry?.(reason, delayMs)
    await sleep(delayMs, signal)
  }
}
