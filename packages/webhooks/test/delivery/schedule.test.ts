import t from 'tap'
import { DEFAULT_RETRY_SCHEDULE, retryAfterMs, retryDelay } from '../../src/index.js'

t.test('the default schedule: 11 retries over about three days, each moved by at most a tenth', async (t) => {
  const hours = DEFAULT_RETRY_SCHEDULE.reduce((sum, ms) => sum + ms, 0) / 3_600_000
  t.ok(hours > 60 && hours < 80, `${hours.toFixed(1)} h`)
  t.same(DEFAULT_RETRY_SCHEDULE.slice(0, 4), [5_000, 300_000, 1_800_000, 7_200_000])
  t.equal(retryDelay(0, DEFAULT_RETRY_SCHEDULE, () => 0), 4_500)
  t.equal(retryDelay(0, DEFAULT_RETRY_SCHEDULE, () => 0.5), 5_000)
  t.equal(retryDelay(1, DEFAULT_RETRY_SCHEDULE, () => 0.999_999_99), 330_000)
  t.equal(retryDelay(DEFAULT_RETRY_SCHEDULE.length, DEFAULT_RETRY_SCHEDULE), null, 'spent')
  const drawn = Array.from({ length: 200 }, () => retryDelay(2, DEFAULT_RETRY_SCHEDULE) ?? 0)
  t.ok(drawn.every((ms) => ms >= 1_620_000 && ms <= 1_980_000) && new Set(drawn).size > 100, 'jittered within a tenth')
})

t.test('Retry-After: seconds or an HTTP date, bounded to a day; absent, past or unreadable is none', async (t) => {
  const now = Date.parse('2026-03-02T08:00:00Z')
  t.equal(retryAfterMs('120', now), 120_000)
  t.equal(retryAfterMs(' 5 ', now), 5_000)
  t.equal(retryAfterMs('Mon, 02 Mar 2026 08:01:30 GMT', now), 90_000)
  t.equal(retryAfterMs('999999', now), 86_400_000)
  for (const none of [undefined, '0', 'Mon, 02 Mar 2026 07:00:00 GMT', 'soon', '-5']) t.equal(retryAfterMs(none, now), null, String(none))
})
