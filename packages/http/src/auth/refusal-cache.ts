import { hash } from 'node:crypto'

/**
 * Keys recently found invalid, with the detail they were refused with, so that a client (or an
 * attacker) repeating a bad key costs no store read each time. It can only ever answer
 * "invalid": a key that is not yet valid cannot become valid (keys are issued with a fresh
 * 256-bit secret), and a valid key is never put here, so no entry can let a revoked key in or
 * keep a good one out. Entries are kept by the key's sha256, for a few seconds, a bounded number.
 */
export class RefusalCache {
  readonly #entries = new Map<string, { readonly until: number; readonly detail: string }>()

  constructor(private readonly ttlMs = 10_000, private readonly maxEntries = 10_000) {}

  get(presented: string): string | undefined {
    // Nothing refused lately (the usual case): no hash to compute.
    if (this.#entries.size === 0) return undefined
    const id = idOf(presented)
    const entry = this.#entries.get(id)
    if (entry === undefined) return undefined
    if (entry.until > Date.now()) return entry.detail
    this.#entries.delete(id)
    return undefined
  }

  set(presented: string, detail: string): void {
    // Oldest first in a Map: past the bound, the earliest entries go.
    while (this.#entries.size >= this.maxEntries) {
      const oldest = this.#entries.keys().next()
      if (oldest.done === true) break
      this.#entries.delete(oldest.value)
    }
    this.#entries.set(idOf(presented), { until: Date.now() + this.ttlMs, detail })
  }
}

function idOf(presented: string): string {
  return hash('sha256', presented, 'base64url')
}
