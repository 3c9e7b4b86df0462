import t from 'tap'
import { openMemoryEventStore } from '@waybill/event-store'
import { generateApiKey, hashApiKey } from '../src/api-key.js'
import { KeyRingError } from '../src/key-errors.js'
import { keyStreamName } from '../src/key-events.js'
import { KeyRing } from '../src/key-ring.js'
import { failingAppendsAfter } from './stores.js'

const NOW = new Date('2025-03-01T08:00:00.000Z')

function ring() {
  const store = openMemoryEventStore()
  return { store, keys: new KeyRing(store, () => NOW) }
}

t.test('issue: one KeyIssued at revision 0 of the key stream; the key is shown once, only its hash is stored', async (t) => {
  const { store, keys } = ring()
  const issued = await keys.issue({ account: 'acme', scopes: ['orders:add', 'orders:read', 'orders:add'] })
  t.match(issued.key, /^wb_live_/)
  t.same(issued.record, {
    keyId: issued.key.slice(8, 20), account: 'acme', scopes: ['orders:add', 'orders:read'], hash: hashApiKey(issued.key), test: false,
    state: 'active', replaces: null, replacedBy: null, issuedAt: NOW.toISOString(), revokedAt: null, reason: null,
    label: null, expiresAt: null, graceUntil: null, lastUsedAt: null,
  })
  const stream = await store.readStream(keyStreamName(issued.record.keyId))
  t.same(stream.map((e) => [e.revision, e.type]), [[0, 'KeyIssued']])
  t.same(stream[0]?.metadata, { prev_hash: null })
  t.notMatch(JSON.stringify(stream.map((e) => e.data)), issued.key)
  t.same(await keys.get(issued.record.keyId), issued.record)
  t.equal(await keys.get('NoSuchKey123'), null)
})

t.test('issue refuses what the issue rules refuse, in the operator\'s words, and stores nothing', async (t) => {
  const { store, keys } = ring()
  for (const [input, code, message] of [
    [{ account: 'Acme-1', scopes: ['orders:read'] }, 'invalid_account', /^account "Acme-1" must be lower-case letters, digits and _ \(at most 64 characters\)$/],
    [{ account: 'acme', scopes: ['orders:read'], test: true }, 'test_key_outside_sandbox', /^test keys belong to the sandbox account only$/],
    [{ account: 'acme', scopes: [] }, 'no_scopes', /^a key needs at least one scope$/],
  ] as const) {
    const error = await keys.issue(input).catch((e: unknown) => e)
    t.ok(error instanceof KeyRingError, code)
    t.match(error, { name: 'KeyRingError', code, message })
  }
  t.same(await store.readAll(), [])
})

t.test('authenticate: the principal of an active key, null for everything else', async (t) => {
  const { store, keys } = ring()
  const live = await keys.issue({ account: 'acme', scopes: ['orders:read'] })
  const sandbox = await keys.issue({ account: 'sandbox', scopes: ['orders:add'], test: true })
  t.same(await keys.authenticate(live.key), { keyId: live.record.keyId, account: 'acme', scopes: ['orders:read'], test: false })
  t.same(await keys.authenticate(sandbox.key), { keyId: sandbox.record.keyId, account: 'sandbox', scopes: ['orders:add'], test: true })

  t.equal(await keys.authenticate('not a key'), null, 'malformed')
  t.equal(await keys.authenticate(generateApiKey(false).key), null, 'well-formed but never issued')
  const forged = live.key.slice(0, -1) + (live.key.endsWith('a') ? 'b' : 'a')
  t.equal(await keys.authenticate(forged), null, 'the secret does not match the stored hash')
  t.equal(await keys.authenticate(live.key.replace('wb_live_', 'wb_test_')), null, 'a live key presented as a test key')
  t.equal(await keys.authenticate(sandbox.key.replace('wb_test_', 'wb_live_')), null, 'a test key presented as a live key')

  // A stored event the decider would refuse: a test key outside the sandbox account.
  const widened = generateApiKey(true)
  await store.appendToStream(keyStreamName(widened.keyId), [{
    id: '6f1c5f3e-0d55-4a3c-9a7e-2f3b6a1d9c01', type: 'KeyIssued',
    data: { key_id: widened.keyId, account: 'acme', scopes: ['orders:read'], hash: widened.hash, test: true, replaces: null, issued_at: NOW.toISOString() },
  }])
  t.equal(await keys.authenticate(widened.key), null, 'a test key never sees another account')

  await keys.revoke(live.record.keyId, 'test')
  t.equal(await keys.authenticate(live.key), null, 'revoked')
  const rotated = await keys.issue({ account: 'acme', scopes: ['orders:read'] })
  await keys.rotate(rotated.record.keyId, 'test')
  t.equal(await keys.authenticate(rotated.key), null, 'rotated')
})

t.test('revoke: only an active key, for good', async (t) => {
  const { keys } = ring()
  const issued = await keys.issue({ account: 'acme', scopes: ['orders:read'] })
  t.match(await keys.revoke(issued.record.keyId, 'left the company'), {
    state: 'revoked', reason: 'left the company', revokedAt: NOW.toISOString(), replacedBy: null,
  })
  await t.rejects(keys.revoke(issued.record.keyId, 'again'), { name: 'KeyRingError', code: 'key_revoked', message: `key ${issued.record.keyId} is already revoked` })
  await t.rejects(keys.revoke('NoSuchKey123', 'x'), { code: 'key_unknown', message: 'no key with id NoSuchKey123' })
  const other = await keys.issue({ account: 'acme', scopes: ['orders:read'] })
  await keys.rotate(other.record.keyId, 'routine')
  await t.rejects(keys.revoke(other.record.keyId, 'x'), { code: 'key_rotated', message: /already rotated/ })
})

t.test('rotate: revoke, issue a replacement for the same account, scopes and test flag, then link them', async (t) => {
  const { store, keys } = ring()
  const issued = await keys.issue({ account: 'sandbox', scopes: ['orders:add', 'orders:read'], test: true })
  const replacement = await keys.rotate(issued.record.keyId, 'routine')
  t.match(replacement.key, /^wb_test_/)
  t.match(replacement.record, { account: 'sandbox', scopes: ['orders:add', 'orders:read'], test: true, state: 'active', replaces: issued.record.keyId })
  t.match(await keys.get(issued.record.keyId), { state: 'rotated', replacedBy: replacement.record.keyId, reason: 'routine' })
  t.same((await store.readStream(keyStreamName(issued.record.keyId))).map((e) => e.type), ['KeyIssued', 'KeyRevoked', 'KeyRotated'])
  t.same((await store.readAll()).map((e) => [e.streamName, e.type]), [
    [keyStreamName(issued.record.keyId), 'KeyIssued'],
    [keyStreamName(issued.record.keyId), 'KeyRevoked'],
    [keyStreamName(replacement.record.keyId), 'KeyIssued'],
    [keyStreamName(issued.record.keyId), 'KeyRotated'],
  ], 'revoked before the replacement exists')
  t.ok(await keys.authenticate(replacement.key))
  await t.rejects(keys.rotate(issued.record.keyId, 'again'), { code: 'key_rotated' })
})

t.test('a rotation that stops half-way leaves the key revoked, never usable', async (t) => {
  const store = openMemoryEventStore()
  const issued = await new KeyRing(store).issue({ account: 'acme', scopes: ['orders:read'] })
  // The revocation is appended; the replacement's KeyIssued is not.
  const halfWay = new KeyRing(failingAppendsAfter(store, 1))
  await t.rejects(halfWay.rotate(issued.record.keyId, 'routine'), { name: 'StoreUnavailableError' })
  const keys = new KeyRing(store)
  t.match(await keys.get(issued.record.keyId), { state: 'revoked', replacedBy: null })
  t.equal(await keys.authenticate(issued.key), null)
  t.equal((await keys.list()).length, 1, 'no replacement was issued')
})

t.test('concurrent rotations of one key: one wins, every other gets KeyRingError', async (t) => {
  const { store, keys } = ring()
  const issued = await keys.issue({ account: 'acme', scopes: ['orders:read'] })
  const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => keys.rotate(issued.record.keyId, 'race')))
  const won = outcomes.filter((outcome) => outcome.status === 'fulfilled')
  const lost = outcomes.flatMap((outcome) => outcome.status === 'rejected' ? [outcome.reason as unknown] : [])
  t.equal(won.length, 1)
  t.equal(lost.length, 5)
  t.ok(lost.every((reason) => reason instanceof KeyRingError), 'the losers get KeyRingError')
  t.same((await store.readStream(keyStreamName(issued.record.keyId))).map((e) => e.type), ['KeyIssued', 'KeyRevoked', 'KeyRotated'])
  t.equal((await keys.list()).filter((record) => record.replaces === issued.record.keyId).length, 1, 'one replacement')
})

t.test('list: every key ever issued, oldest first, whatever its state; other streams are not read', async (t) => {
  const { store, keys } = ring()
  t.same(await keys.list(), [])
  const a = await keys.issue({ account: 'acme', scopes: ['orders:read'] })
  await store.appendToStream('order-acme-1', [{ id: '0b7f3c1e-5a2d-4e8b-9c6f-1d2e3f4a5b6c', type: 'OrderAdded', data: {} }])
  const b = await keys.issue({ account: 'beta', scopes: ['orders:add'] })
  const c = await keys.rotate(a.record.keyId, 'routine')
  await keys.revoke(b.record.keyId, 'gone')
  t.same((await keys.list()).map((record) => [record.keyId, record.state]), [
    [a.record.keyId, 'rotated'], [b.record.keyId, 'revoked'], [c.record.keyId, 'active'],
  ])
})

/** A ring whose clock the test moves. */
function clocked(start = NOW) {
  const store = openMemoryEventStore()
  const clock = { now: new Date(start) }
  return { store, clock, keys: new KeyRing(store, () => clock.now) }
}
const later = (from: Date, ms: number): Date => new Date(from.getTime() + ms)
const HOUR = 3600 * 1000

t.test('rotate with a grace: the old key keeps working until the grace ends, then never again', async (t) => {
  const { store, clock, keys } = clocked()
  const old = await keys.issue({ account: 'acme', scopes: ['orders:add', 'orders:read'], label: 'courier app' })
  const replacement = await keys.rotate(old.record.keyId, 'routine', { graceMs: 24 * HOUR })
  t.match(replacement.record, { state: 'active', replaces: old.record.keyId, label: 'courier app', scopes: ['orders:add', 'orders:read'] })
  const stream = await store.readStream(keyStreamName(old.record.keyId))
  t.same(stream.map((e) => e.type), ['KeyIssued', 'KeyRevoked', 'KeyRotated'], 'the same events as a rotation without grace')
  t.match(stream[1]?.data, { reason: 'routine', revoked_at: NOW.toISOString(), grace_until: later(NOW, 24 * HOUR).toISOString() }, 'the grace is recorded')
  t.match(await keys.get(old.record.keyId), { state: 'rotated', replacedBy: replacement.record.keyId, graceUntil: later(NOW, 24 * HOUR).toISOString() })

  t.match(await keys.authenticate(old.key), { keyId: old.record.keyId, account: 'acme' }, 'right after the rotation')
  t.ok(await keys.authenticate(replacement.key), 'and so does the replacement')
  clock.now = later(NOW, 24 * HOUR - 1)
  t.ok(await keys.authenticate(old.key), 'a millisecond before the grace ends')
  clock.now = later(NOW, 24 * HOUR)
  t.equal(await keys.authenticate(old.key), null, 'from the end of the grace on')
  clock.now = new Date(NOW)
  t.ok(await keys.authenticate(old.key), 'the key ring compares with the clock it is given')
  await t.rejects(keys.rotate(old.record.keyId, 'again'), { code: 'key_rotated' }, 'a key in its grace cannot be rotated twice')
})

t.test('rotate: the default grace is none; a grace past 30 days is refused before anything is written', async (t) => {
  const { store, keys } = clocked()
  const plain = await keys.issue({ account: 'acme', scopes: ['orders:read'] })
  await keys.rotate(plain.record.keyId, 'routine')
  t.equal(await keys.authenticate(plain.key), null)
  t.match(await keys.get(plain.record.keyId), { graceUntil: null })
  t.notOk('grace_until' in ((await store.readStream(keyStreamName(plain.record.keyId)))[1]?.data ?? {}), 'no grace, no grace_until')
  const other = await keys.issue({ account: 'acme', scopes: ['orders:read'] })
  const head = await store.headPosition()
  await t.rejects(keys.rotate(other.record.keyId, 'routine', { graceMs: 31 * 24 * HOUR }), {
    name: 'KeyRingError', code: 'invalid_grace', message: `key ${other.record.keyId}: a grace must end after the rotation and last at most 30 days`,
  })
  t.same(await store.headPosition(), head, 'nothing appended')
  t.ok(await keys.authenticate(other.key), 'the key is as it was')
  await t.rejects(keys.rotate('NoSuchKey123', 'x'), { code: 'key_unknown' })
})

t.test('endGrace: a key in its grace stops at once; one without a grace cannot', async (t) => {
  const { clock, keys } = clocked()
  const old = await keys.issue({ account: 'acme', scopes: ['orders:read'] })
  await keys.rotate(old.record.keyId, 'routine', { graceMs: HOUR })
  clock.now = later(NOW, 60_000)
  t.match(await keys.endGrace(old.record.keyId, 'insecure_connection'), { state: 'rotated', graceUntil: clock.now.toISOString(), reason: 'insecure_connection' })
  t.equal(await keys.authenticate(old.key), null)
  await t.rejects(keys.endGrace(old.record.keyId, 'again'), { code: 'no_grace', message: `key ${old.record.keyId} has no grace left to end` })
  const active = await keys.issue({ account: 'acme', scopes: ['orders:read'] })
  await t.rejects(keys.endGrace(active.record.keyId, 'x'), { code: 'no_grace' })
})

t.test('expiry: a key stops authenticating when it expires; an update can move or remove the expiry', async (t) => {
  const { clock, keys } = clocked()
  const expires = later(NOW, 2 * HOUR).toISOString()
  const issued = await keys.issue({ account: 'acme', scopes: ['orders:read'], expiresAt: expires })
  t.match(issued.record, { expiresAt: expires, state: 'active' })
  t.ok(await keys.authenticate(issued.key))
  clock.now = later(NOW, 2 * HOUR)
  t.equal(await keys.authenticate(issued.key), null, 'expired')
  t.match(await keys.get(issued.record.keyId), { state: 'active' }, 'an expired key is not revoked: it can be renewed')
  await keys.update(issued.record.keyId, { expiresAt: later(NOW, 3 * HOUR).toISOString() })
  t.ok(await keys.authenticate(issued.key), 'renewed')
  await keys.update(issued.record.keyId, { expiresAt: null })
  clock.now = later(NOW, 1000 * HOUR)
  t.ok(await keys.authenticate(issued.key), 'no longer expires')
  await t.rejects(keys.update(issued.record.keyId, { expiresAt: NOW.toISOString() }), { code: 'invalid_expiry' }, 'an expiry in the past')
  await t.rejects(keys.issue({ account: 'acme', scopes: ['orders:read'], expiresAt: NOW.toISOString() }), { code: 'invalid_expiry' })
})

t.test('rotate keeps the expiry, or takes the one given; an expired key is not rotated into an expired replacement', async (t) => {
  const { store, clock, keys } = clocked()
  const expires = later(NOW, HOUR).toISOString()
  const a = await keys.issue({ account: 'acme', scopes: ['orders:read'], expiresAt: expires })
  t.match((await keys.rotate(a.record.keyId, 'routine')).record, { expiresAt: expires })
  const b = await keys.issue({ account: 'acme', scopes: ['orders:read'], expiresAt: expires })
  t.match((await keys.rotate(b.record.keyId, 'routine', { expiresAt: null })).record, { expiresAt: null })
  const c = await keys.issue({ account: 'acme', scopes: ['orders:read'], expiresAt: expires })
  clock.now = later(NOW, 2 * HOUR)
  const head = await store.headPosition()
  await t.rejects(keys.rotate(c.record.keyId, 'routine'), {
    code: 'invalid_expiry', message: `key ${c.record.keyId}: its replacement cannot expire at ${expires}; give it a later expiry, or none`,
  })
  t.same(await store.headPosition(), head, 'the old key was not revoked')
  const renewed = await keys.rotate(c.record.keyId, 'routine', { expiresAt: later(NOW, 5 * HOUR).toISOString() })
  t.ok(await keys.authenticate(renewed.key))
})

t.test('update: scopes and label change, and authentication follows at once', async (t) => {
  const { store, keys } = clocked()
  const issued = await keys.issue({ account: 'acme', scopes: ['orders:read'], label: 'reports' })
  const updated = await keys.update(issued.record.keyId, { scopes: ['orders:read', 'orders:add'], label: 'reports and intake' })
  t.match(updated, { scopes: ['orders:read', 'orders:add'], label: 'reports and intake', state: 'active' })
  t.match(await keys.authenticate(issued.key), { scopes: ['orders:read', 'orders:add'] })
  t.same((await store.readStream(keyStreamName(issued.record.keyId))).map((e) => e.type), ['KeyIssued', 'KeyUpdated'])
  t.same(await keys.update(issued.record.keyId, { label: 'reports and intake' }), updated, 'nothing to change: nothing appended')
  t.equal((await store.readStream(keyStreamName(issued.record.keyId))).length, 2)
  t.match(await keys.update(issued.record.keyId, { label: null }), { label: null })
  await t.rejects(keys.update(issued.record.keyId, { scopes: ['orders:audit'] }), {
    code: 'audit_outside_wildcard', message: `key ${issued.record.keyId}: orders:audit belongs to keys of every account (*) only`,
  })
  await t.rejects(keys.update('NoSuchKey123', { label: 'x' }), { code: 'key_unknown' })
  await keys.revoke(issued.record.keyId, 'gone')
  await t.rejects(keys.update(issued.record.keyId, { label: 'x' }), { code: 'key_revoked' })
})

t.test('auditor keys: issued for *, and a stored event that gives one a write scope does not authenticate', async (t) => {
  const { store, keys } = clocked()
  const auditor = await keys.issue({ account: '*', scopes: ['orders:audit'], label: 'external audit' })
  t.same(await keys.authenticate(auditor.key), { keyId: auditor.record.keyId, account: '*', scopes: ['orders:audit'], test: false })
  await t.rejects(keys.issue({ account: '*', scopes: ['orders:add', 'orders:audit'] }), {
    code: 'wildcard_not_auditor', message: /^the \* account \(every account\) is for auditor keys/,
  })
  const widened = generateApiKey(false)
  await store.appendToStream(keyStreamName(widened.keyId), [{
    id: '3c2b1a09-8f7e-4d6c-9b5a-1e2d3c4b5a69', type: 'KeyIssued',
    data: { key_id: widened.keyId, account: '*', scopes: ['orders:audit', 'orders:add'], hash: widened.hash, test: false, replaces: null, issued_at: NOW.toISOString() },
  }])
  t.equal(await keys.authenticate(widened.key), null, 'no stored event widens an auditor key')
})

t.test('findByKey: the record of exactly that key, whatever its state', async (t) => {
  const { keys } = clocked()
  const issued = await keys.issue({ account: 'acme', scopes: ['orders:read'] })
  t.match(await keys.findByKey(issued.key), { keyId: issued.record.keyId })
  await keys.revoke(issued.record.keyId, 'gone')
  t.match(await keys.findByKey(issued.key), { keyId: issued.record.keyId, state: 'revoked' })
  const forged = issued.key.slice(0, -1) + (issued.key.endsWith('a') ? 'b' : 'a')
  for (const other of [forged, issued.key.replace('wb_live_', 'wb_test_'), generateApiKey(false).key, 'junk', issued.record.keyId]) {
    t.equal(await keys.findByKey(other), null, other)
  }
})
