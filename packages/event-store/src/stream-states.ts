/** A stream's folded state and the revision it was folded to ('no_stream': nothing stored yet). */
export interface KnownState<State> {
  readonly state: State
  readonly revision: 'no_stream' | number
}

/** Streams kept by default: an order's state is a few hundred bytes, so about a few MiB. */
const DEFAULT_CAPACITY = 10_000

/**
 * The states `handleCommand` last saw of recently used streams, so that the next command on the
 * same stream can skip reading and folding it. It is a guess and never a source of truth: an
 * append decided on a cached state carries the cached revision as its expected revision, so the
 * store itself refuses it when anyone (another process, another instance) appended since; and an
 * answer that appends nothing (a rejection, an exact retry) is only ever given after a fresh read
 * (see handleCommand). Least recently used streams are dropped past `capacity`.
 */
export class StreamStates<State> {
  readonly #known = new Map<string, KnownState<State>>()

  constructor(readonly capacity = DEFAULT_CAPACITY) {}

  get(streamName: string): KnownState<State> | undefined {
    const known = this.#known.get(streamName)
    if (known !== undefined) {
      // Map keeps insertion order: moving the entry to the end keeps the oldest first.
      this.#known.delete(streamName)
      this.#known.set(streamName, known)
    }
    return known
  }

  set(streamName: string, known: KnownState<State>): void {
    this.#known.delete(streamName)
    this.#known.set(streamName, known)
    if (this.#known.size > this.capacity) {
      const oldest = this.#known.keys().next()
      if (oldest.done !== true) this.#known.delete(oldest.value)
    }
  }

  delete(streamName: string): void {
    this.#known.delete(streamName)
  }

  get size(): number {
    return this.#known.size
  }
}
