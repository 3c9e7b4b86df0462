/** How re-subscription waits grow. */
export interface BackoffOptions {
  /** Wait after the first failure, before jitter; default 100 ms. */
  readonly initialMs?: number
  /** Longest wait; default 30 s. */
  readonly maxMs?: number
  /** Source of jitter in [0, 1); default Math.random. */
  readonly random?: () => number
}

/**
 * Wait before the next attempt after `failures` consecutive failures: doubling from
 * `initialMs` up to `maxMs`, of which the upper half is random so that many projectors cut off
 * by the same outage do not all come back in the same instant.
 */
export function backoffDelay(failures: number, options: BackoffOptions = {}): number {
  const initial = options.initialMs ?? 100
  const max = options.maxMs ?? 30_000
  const ceiling = Math.min(max, initial * 2 ** Math.min(failures, 30))
  const random = options.random ?? Math.random
  return Math.round(ceiling / 2 + (random() * ceiling) / 2)
}
