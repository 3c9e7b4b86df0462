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
