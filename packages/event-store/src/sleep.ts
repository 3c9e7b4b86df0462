import { setTimeout as delay } from 'node:timers/promises'

/**
 * Resolves after `ms`, or as soon as `signal` aborts (at once when it already has). An abort
 * resolves quietly rather than rejecting: every caller waits between retries and, once stopped,
 * simply does not retry.
 */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await delay(ms, undefined, signal === undefined ? undefined : { signal })
  } catch (error) {
    if (!(signal?.aborted ?? false)) throw error
  }
}
