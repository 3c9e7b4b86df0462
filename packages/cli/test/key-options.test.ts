import t from 'tap'
import { UsageError } from '../src/command.js'
import { parseExpiry, parseGrace, parseKeyReference, parseLabel, parseScopes } from '../src/key-options.js'

const NOW = new Date('2025-03-01T08:00:00.000Z')

t.test('--expires: never, a duration from now, a day (UTC), or a UTC time; always in the future', async (t) => {
  t.equal(parseExpiry('never', NOW), null)
  t.equal(parseExpiry('90d', NOW), '2025-05-30T08:00:00.000Z')
  t.equal(parseExpiry('12h', NOW), '2025-03-01T20:00:00.000Z')
  t.equal(parseExpiry('2026-01-31', NOW), '2026-01-31T00:00:00.000Z')
  t.equal(parseExpiry('2026-01-31T12:30:00Z', NOW), '2026-01-31T12:30:00.000Z')
  for (const bad of ['tomorrow', '2026-02-30', '2026-01-31T12:30:00+01:00', '1y', '-1d', '', '2025-03-01T08:00:00Z', '2020-01-01', '0s']) {
    t.throws(() => parseExpiry(bad, NOW), { message: /^--expires: / }, bad)
  }
  t.throws(() => parseExpiry('2020-01-01', NOW), { message: '--expires: 2020-01-01 is not in the future' })
})

t.test('--grace: a duration of at most 30 days; 0 is none', async (t) => {
  t.equal(parseGrace('24h'), 24 * 3600_000)
  t.equal(parseGrace('30d'), 30 * 24 * 3600_000)
  t.equal(parseGrace('0h'), 0)
  t.throws(() => parseGrace('31d'), { message: '--grace: at most 30d (31d asked)' })
  t.throws(() => parseGrace('24'), { message: '--grace: "24" is not a duration such as 24h, 7d, 30m or 90s' })
})

t.test('a key named by its id or whole; a truncated key is refused without being echoed', async (t) => {
  const key = `wb_live_AbCdEfGh1234${'s'.repeat(43)}`
  t.same(parseKeyReference(key), { key })
  t.same(parseKeyReference('AbCdEfGh1234'), { keyId: 'AbCdEfGh1234' })
  const error = (() => { try { parseKeyReference(key.slice(0, -1)) } catch (e) { return e as Error } })()
  t.ok(error instanceof UsageError)
  t.notMatch(error?.message ?? '', /AbCdEfGh1234/)
})

t.test('--label and --scopes', async (t) => {
  t.equal(parseLabel(''), null)
  t.equal(parseLabel('courier app'), 'courier app')
  t.same(parseScopes('all'), ['orders:add', 'orders:update', 'orders:complete', 'orders:cancel', 'orders:read'], 'all: never orders:audit')
  t.same(parseScopes('orders:audit'), ['orders:audit'])
  t.throws(() => parseScopes('orders:fly'), { message: /^unknown scope "orders:fly"; scopes: .*orders:audit, or all$/ })
  t.throws(() => parseScopes(' , '), { message: '--scopes needs at least one scope' })
})
