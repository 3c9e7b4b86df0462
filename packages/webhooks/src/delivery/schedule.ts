const SECOND = 1000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE

/**
 * How long a message waits before each retry (docs/operations.md#webhooks): the Standard
 * Webhooks example schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h) with four more 10-hour
 * steps, so that the 12 attempts span about three days (67.6 h before jitter), as Stripe's do.
 * After the last one fails, the endpoint is disabled.
 */
export const DEFAULT_RETRY_SCHEDULE: readonly number[] = [
  5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR, 10 * HOUR, 10 * HOUR, 10 * HOUR, 10 * HOUR,
]

/** How far each wait is moved at random, either way: a tenth. */
const JITTER = 0.1

/**
 * The wait before retry number `retry` (0 for the first retry) by `schedule`, moved by up to a
 * tenth either way, so messages that failed together (a receiver down) do not all come back in
 * the same second; null once the schedule is spent. Not `backoffDelay`: that doubles from a
 * floor to a ceiling and draws from the upper half, which over a schedule of days would cut a
 * quarter off it on average; this is a table, as the Standard Webhooks spec writes it.
 */
export function retryDelay(retry: number, schedule: readonly number[], random: () => number = Math.random): number | null {
  const base = schedule[retry]
  if (base === undefined) return null
  return Math.round(base * (1 + JITTER * (2 * random() - 1)))
}

/** The longest `Retry-After` honoured: a receiver cannot park an endpoint for longer than this. */
const RETRY_AFTER_MAX_MS = 24 * HOUR

/**
 * A `Retry-After` header in milliseconds from `now`: delay-seconds or an HTTP date (RFC 9110
 * §10.2.3), at most `RETRY_AFTER_MAX_MS`; null when absent, unreadable or already past.
 */
export function retryAfterMs(header: string | undefined, now: number): number | null {
  if (header === undefined) return null
  const text = header.trim()
  const ms = /^\d{1,10}$/.test(text) ? Number(text) * SECOND : Date.parse(text) - now
  if (!Number.isFinite(ms) || ms <= 0) return null
  return Math.min(ms, RETRY_AFTER_MAX_MS)
}
