/**
 * How retry waits grow, for one caller: each caller keeps its own policy object (a projector
 * retries its store within seconds, a thread that died is restarted over tens of seconds), and
 * every one goes through `backoffDelay`.
 */
export interface BackoffPolicy {
  /** Wait after the first failure, before jitter; default 100 ms. */
  readonly initialMs?: number
  /** Longest wait; default 30 s. */
  readonly maxMs?: number
  /** Source of jitter in [0, 1); default Math.random. */
  readonly random?: () => number
}

/**
 * Wait before the next attempt after `failures` consecutive failures (0 for the first retry):
 * doubling from `initialMs` up to `maxMs`, of which the upper half is random, so that the many
 * projectors or subscriptions cut off by one outage do not all come back in the same instant.
 */
export function backoffDelay(failures: number, policy: BackoffPolicy = {}): number {
  const initial = policy.initialMs ?? 100
  const max = policy.maxMs ?? 30_000
  const ceiling = Math.min(max, initial * 2 ** Math.min(failures, 30))
  const random = policy.random ?? Math.random
  return Math.round(ceiling / 2 + (random() * ceiling) / 2)
}
