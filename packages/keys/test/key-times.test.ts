import t from 'tap'
import type { KeyRecord } from '../src/key-state.js'
import { expiryRejection, graceRejection, isBefore, isUsableAt, MAX_GRACE_MS, USE_RECORD_INTERVAL_MS, withinUseInterval } from '../src/key-times.js'

const active: KeyRecord = {
  keyId: 'AbCdEfGh1234', account: 'acme', scopes: ['orders:read'], hash: 'ab'.repeat(32), test: false, state: 'active',
  replaces: null, replacedBy: null, issuedAt: '2025-03-01T08:00:00.000Z', revokedAt: null, reason: null,
  label: null, expiresAt: null, graceUntil: null, lastUsedAt: null,
}
const at = (time: string): Date => new Date(time)

t.test('an active key is usable until it expires, and not from that instant on', async (t) => {
  t.ok(isUsableAt(active, at('2999-01-01T00:00:00Z')), 'no expiry: always')
  const expiring = { ...active, expiresAt: '2025-06-01T00:00:00.000Z' }
  t.ok(isUsableAt(expiring, at('2025-05-31T23:59:59.999Z')))
  t.notOk(isUsableAt(expiring, at('2025-06-01T00:00:00.000Z')))
  t.notOk(isUsableAt({ ...active, expiresAt: 'not a time' }, at('2025-03-01T09:00:00Z')), 'an expiry that does not parse refuses the key')
})

t.test('a revoked or rotated key is usable only before its grace ends, and before its expiry', async (t) => {
  for (const state of ['revoked', 'rotated'] as const) {
    const graced = { ...active, state, revokedAt: '2025-03-02T09:00:00.000Z', graceUntil: '2025-03-03T09:00:00.000Z' }
    t.ok(isUsableAt(graced, at('2025-03-03T08:59:59.999Z')), state)
    t.notOk(isUsableAt(graced, at('2025-03-03T09:00:00.000Z')), state)
    t.notOk(isUsableAt({ ...graced, graceUntil: null }, at('2025-03-02T09:00:00.000Z')), `${state} at once`)
    t.notOk(isUsableAt({ ...graced, expiresAt: '2025-03-02T12:00:00.000Z' }, at('2025-03-02T13:00:00.000Z')), `${state}: the expiry comes first`)
    t.notOk(isUsableAt({ ...graced, graceUntil: 'garbage' }, at('2025-03-02T10:00:00.000Z')), `${state}: a grace that does not parse gives none`)
  }
})

t.test('an expiry is a real UTC time after the moment that sets it', async (t) => {
  t.equal(expiryRejection('2025-03-01T08:00:00.001Z', '2025-03-01T08:00:00.000Z'), null)
  for (const bad of ['2025-03-01T08:00:00.000Z', '2025-01-01T00:00:00Z', '2025-02-30T00:00:00Z', '2026-01-01', '']) {
    t.equal(expiryRejection(bad, '2025-03-01T08:00:00.000Z'), 'invalid_expiry', bad)
  }
})

t.test('a grace ends after the revocation, at most 30 days later', async (t) => {
  t.equal(MAX_GRACE_MS, 30 * 24 * 3600 * 1000)
  t.equal(graceRejection('2025-03-02T09:00:00.001Z', '2025-03-02T09:00:00.000Z'), null)
  t.equal(graceRejection('2025-04-01T09:00:00.000Z', '2025-03-02T09:00:00.000Z'), null)
  for (const bad of ['2025-04-01T09:00:00.001Z', '2025-03-02T09:00:00.000Z', '2025-03-01T00:00:00Z', 'later']) {
    t.equal(graceRejection(bad, '2025-03-02T09:00:00.000Z'), 'invalid_grace', bad)
  }
})

t.test('uses within a minute of each other are one use; times that do not parse are never before anything', async (t) => {
  t.equal(USE_RECORD_INTERVAL_MS, 60_000)
  t.ok(withinUseInterval('2025-03-01T10:00:00.000Z', '2025-03-01T10:00:59.999Z'))
  t.ok(withinUseInterval('2025-03-01T10:00:00.000Z', '2025-03-01T09:00:00.000Z'))
  t.notOk(withinUseInterval('2025-03-01T10:00:00.000Z', '2025-03-01T10:01:00.000Z'))
  t.ok(isBefore('2025-03-01T10:00:00.000Z', '2025-03-01T10:00:00.001Z'))
  t.notOk(isBefore('2025-03-01T10:00:00.000Z', '2025-03-01T10:00:00.000Z'))
  t.notOk(isBefore('x', '2025-03-01T10:00:00.000Z'))
})
