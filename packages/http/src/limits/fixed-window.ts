/**
 * Counts per key (a client address) in fixed windows: a new window forgets every key at once, so
 * there is no timer per key and memory is bounded by the keys seen in one window.
 */
export class FixedWindowCounts {
  private windowEnds: number
  private counts = new Map<string, number>()

  constructor(private readonly windowMs: number, private readonly now: () => number = Date.now) {
    this.windowEnds = now() + windowMs
  }

  /** Counts one more for `key`; answers the count in this window, this one included. */
  add(key: string): number {
    const count = this.get(key) + 1
    this.counts.set(key, count)
    return count
  }

  /** The count for `key` in this window. */
  get(key: string): number {
    const now = this.now()
    if (now >= this.windowEnds) {
      this.counts = new Map()
      this.windowEnds = now + this.windowMs
    }
    return this.counts.get(key) ?? 0
  }

  /** Whole seconds until this window ends, at least 1: what a Retry-After says. */
  secondsLeft(): number {
    return Math.max(1, Math.ceil((this.windowEnds - this.now()) / 1000))
  }
}
