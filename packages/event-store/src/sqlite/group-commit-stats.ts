import type { WriteStats } from '../port.js'

export class GroupCommitCounter {
  #appends = 0
  #batches = 0
  readonly #sizes = new Map<number, number>()

  record(size: number): void {
    this.#appends += size
    this.#batches += 1
    this.#sizes.set(size, (this.#sizes.get(size) ?? 0) + 1)
  }

  snapshot(): WriteStats {
    const batchSizeCounts = [...this.#sizes.entries()].sort(([a], [b]) => a - b)
    return {
      appends: this.#appends,
      batches: this.#batches,
      batchSizeCounts,
      maxBatchSize: batchSizeCounts.at(-1)?.[0] ?? 0,
    }
  }
}

/** Mean, median and largest batch size of a stats snapshot (zeros when nothing was written). */
export function summarizeBatchSizes(stats: WriteStats): { mean: number; p50: number; max: number } {
  if (stats.batches === 0) return { mean: 0, p50: 0, max: 0 }
  let seen = 0
  let p50 = 0
  for (const [size, count] of stats.batchSizeCounts) {
    seen += count
    if (seen * 2 >= stats.batches) {
      p50 = size
      break
    }
  }
  return { mean: stats.appends / stats.batches, p50, max: stats.maxBatchSize }
}
