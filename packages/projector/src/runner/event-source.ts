import { categoryOf } from '@waybill/event-store'
import type { EventStore, FollowedBy, Position, ProjectionEvent } from '@waybill/event-store'
import { ORDER_METADATA_KEYS } from '../orders/fold.js'

/** One read of the log: the projection's events in it, and how far it read. */
export interface PulledBatch {
  /** The events of the projection's categories, in log order. */
  readonly events: readonly ProjectionEvent[]
  /**
   * The position of the last event the read saw, of any category (null when it saw none). A
   * checkpoint may move there and no further: only what was read is known to hold no event of
   * the projection's. Never a head read at another moment, from another node.
   */
  readonly through: Position | null
  /** Whether the read reached the end of the log (it saw fewer events than it asked for). */
  readonly complete: boolean
}

/**
 * What the projector reads from. Small on purpose, so that the SQLite store (poll + in-process
 * wake-up) and EventStoreDB (a subscription) can both feed it.
 */
export interface EventSource {
  /** The next `maxCount` events of the log strictly after `after` (from the start when null), filtered to the projection's. */
  pull(after: Position | null, maxCount: number): Promise<PulledBatch>
  /** Position of the last event of the whole log (any category), or null when it is empty. */
  headPosition(): Promise<Position | null>
  /** Events of the whole log after `after`, counted up to `limit`: the projector's lag in events. */
  countAfter(after: Position | null, limit: number): Promise<number>
  /** Resolves when new events may be there, at the latest after `timeoutMs` or when `signal` aborts. */
  waitForMore(timeoutMs: number, signal: AbortSignal): Promise<void>
  /** Lets go of what the source holds (listeners); not the store, which the caller owns. */
  close?(): void
}

/** How long a wake-up waits for more appends to join it. */
export const WAKE_COALESCE_MS = 50

export interface StoreEventSourceOptions {
  /** The categories the projection reads. Default `['order']`. */
  readonly categories?: readonly string[]
  /** How long a wake-up waits for more appends to join it. Default `WAKE_COALESCE_MS`. */
  readonly coalesceMs?: number
  /** The metadata keys a projection read keeps. Default the orders projection's. */
  readonly metadataKeys?: readonly string[]
  /** The data members a projection read keeps. Default all of them. */
  readonly dataKeys?: readonly string[]
  /** Whether a projection read hands each event's data as its canonical text too. */
  readonly dataText?: boolean
  /** Which events a projection read marks by the type of the next event of their stream (a rebuild's). */
  readonly followedBy?: FollowedBy
  /**
   * Where notices of appends come from. Default the store's own `onAppended` (appends of this
   * process); `waybill serve`'s projector thread passes on the main thread's.
   */
  readonly onAppended?: (listener: () => void) => (() => void) | undefined
}

/**
 * Reads the order category of any `EventStore`: with `readAllForProjection` when the store offers
 * it (only the columns and metadata keys the projection reads, measured ~1.5× cheaper per event
 * on a rebuild), with `readAll` otherwise. Between batches it waits for a notice of appends when
 * it gets them (same process) and polls otherwise, so a projector in another process still sees
 * new events within `timeoutMs`.
 */
export function storeEventSource(store: EventStore, options: StoreEventSourceOptions = {}): EventSource {
  const coalesceMs = options.coalesceMs ?? WAKE_COALESCE_MS
  const metadataKeys = options.metadataKeys ?? ORDER_METADATA_KEYS
  let wake: (() => void) | null = null
  let pending: NodeJS.Timeout | null = null
  // A notice that came while no one waited (a batch was being applied): the next wait does not
  // sit out its poll for it.
  let noticed = false
  // Under load the store commits a batch every few milliseconds; waking on each one made the
  // in-process projector run a read-model transaction per group commit, on the ingress' own
  // thread. Waiting `coalesceMs` after the first notification lets one projector batch take
  // many commits (measured by `pnpm bench`: about +40% ingress req/s), for that much more lag.
  const onAppended = (): void => {
    if (wake === null) {
      noticed = true
      return
    }
    if (pending !== null) return
    pending = setTimeout(() => {
      pending = null
      wake?.()
    }, coalesceMs)
  }
  const unsubscribe = options.onAppended !== undefined ? options.onAppended(onAppended) : store.onAppended?.(onAppended)
  const readForProjection = store.readAllForProjection?.bind(store)
  const wanted = new Set(options.categories ?? ['order'])
  // The whole log is read, not only the projection's categories, so that `through` is the last
  // position actually read (other categories are a few key events beside the orders).
  const read = readForProjection !== undefined
    ? (after: Position | null, maxCount: number) =>
      readForProjection({ after, maxCount, metadataKeys, dataKeys: options.dataKeys, dataText: options.dataText, followedBy: options.followedBy })
    : (after: Position | null, maxCount: number) => store.readAll({ after, maxCount })
  const countAfter = store.countAfter?.bind(store)
  return {
    close: () => {
      if (pending !== null) clearTimeout(pending)
      unsubscribe?.()
    },
    pull: async (after, maxCount) => {
      const events = await read(after, maxCount)
      return {
        events: events.filter((event) => wanted.has(categoryOf(event.streamName))),
        through: events.at(-1)?.position ?? null,
        complete: events.length < maxCount,
      }
    },
    headPosition: () => store.headPosition(),
    countAfter: countAfter !== undefined
      ? (after, limit) => countAfter({ after, limit })
      : async (after, limit) => (await store.readAll({ after, maxCount: limit })).length,
    waitForMore: (timeoutMs, signal) =>
      new Promise<void>((resolve) => {
        // An abort listener added now would never fire.
        if (signal.aborted) {
          resolve()
          return
        }
        const done = (): void => {
          clearTimeout(timer)
          signal.removeEventListener('abort', done)
          wake = null
          resolve()
        }
        const timer = setTimeout(done, timeoutMs)
        signal.addEventListener('abort', done)
        wake = done
        if (noticed) {
          noticed = false
          onAppended()
        }
      }),
  }
}
