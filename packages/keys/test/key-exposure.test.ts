import { readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { openMemoryEventStore } from '@waybill/event-store'
import { generateApiKey } from '../src/api-key.js'
import { testKeyPath, writeSecretFile } from '../src/key-files.js'
import { revokeExposedKey } from '../src/key-exposure.js'
import { KeyRing } from '../src/key-ring.js'
import { failingAppendsAfter, tempDir } from './stores.js'

t.test('an exposed key is revoked and replaced; the replacement is written for the operator only', async (t) => {
  const dataDir = await tempDir(t)
  const keys = new KeyRing(openMemoryEventStore())
  await writeSecretFile(testKeyPath(dataDir), generateApiKey(true).key)
  const before = await readFile(testKeyPath(dataDir), 'utf8')
  const live = await keys.issue({ account: 'acme', scopes: ['orders:add', 'orders:read'] })
  const result = await revokeExposedKey(keys, dataDir, live.key)
  const old = await keys.get(live.record.keyId)
  t.same(result, { revokedKeyId: live.record.keyId, replacementKeyId: old?.replacedBy })
  t.match(old, { state: 'rotated', reason: 'insecure_connection' })
  const file = join(dataDir, 'replaced-keys', result?.replacementKeyId ?? '')
  t.equal((await stat(file)).mode & 0o777, 0o600)
  t.match(await keys.authenticate((await readFile(file, 'utf8')).trim()), { account: 'acme', scopes: ['orders:add', 'orders:read'], test: false })
  t.equal(await readFile(testKeyPath(dataDir), 'utf8'), before, 'another key\'s exposure leaves test-api-key alone')
})

t.test('the sandbox test key exposed: test-api-key is rewritten with its replacement', async (t) => {
  const dataDir = await tempDir(t)
  const keys = new KeyRing(openMemoryEventStore())
  const sandbox = await keys.issue({ account: 'sandbox', scopes: ['orders:read'], test: true })
  await writeSecretFile(testKeyPath(dataDir), sandbox.key)
  const result = await revokeExposedKey(keys, dataDir, sandbox.key)
  const rewritten = (await readFile(testKeyPath(dataDir), 'utf8')).trim()
  t.not(rewritten, sandbox.key)
  t.match(await keys.authenticate(rewritten), { keyId: result?.replacementKeyId, account: 'sandbox', test: true })
})

t.test('unknown, malformed and already revoked keys change nothing', async (t) => {
  const dataDir = await tempDir(t)
  const store = openMemoryEventStore()
  const keys = new KeyRing(store)
  const revoked = await keys.issue({ account: 'acme', scopes: ['orders:read'] })
  await keys.revoke(revoked.record.keyId, 'gone')
  const head = await store.headPosition()
  for (const presented of ['junk', generateApiKey(false).key, revoked.key]) t.equal(await revokeExposedKey(keys, dataDir, presented), null)
  t.same(await store.headPosition(), head, 'nothing appended')
  t.same(await readdir(dataDir), [], 'nothing written')
})

t.test('the same key exposed by concurrent requests is revoked and replaced once', async (t) => {
  const dataDir = await tempDir(t)
  const keys = new KeyRing(openMemoryEventStore())
  const live = await keys.issue({ account: 'acme', scopes: ['orders:read'] })
  const results = await Promise.all(Array.from({ length: 5 }, () => revokeExposedKey(keys, dataDir, live.key)))
  t.equal(results.filter((result) => result !== null).length, 1)
  t.equal((await readdir(join(dataDir, 'replaced-keys'))).length, 1)
  t.equal((await keys.list()).filter((record) => record.replaces === live.record.keyId).length, 1)
})

t.test('a store failure is not a lost race: it reaches the caller', async (t) => {
  const dataDir = await tempDir(t)
  const store = openMemoryEventStore()
  const live = await new KeyRing(store).issue({ account: 'acme', scopes: ['orders:read'] })
  await t.rejects(revokeExposedKey(new KeyRing(failingAppendsAfter(store, 0)), dataDir, live.key), { name: 'StoreUnavailableError' })
})

t.test('a key exposed during its rotation\'s grace stops at once; its replacement is the one the rotation issued', async (t) => {
  const dataDir = await tempDir(t)
  const keys = new KeyRing(openMemoryEventStore())
  const old = await keys.issue({ account: 'acme', scopes: ['orders:read'] })
  const replacement = await keys.rotate(old.record.keyId, 'rotated by operator', { graceMs: 24 * 3600_000 })
  t.ok(await keys.authenticate(old.key), 'in its grace')
  const result = await revokeExposedKey(keys, dataDir, old.key)
  t.same(result, { revokedKeyId: old.record.keyId, replacementKeyId: replacement.record.keyId })
  t.equal(await keys.authenticate(old.key), null, 'the grace ended at once')
  t.match(await keys.get(old.record.keyId), { state: 'rotated', reason: 'insecure_connection', replacedBy: replacement.record.keyId })
  t.ok(await keys.authenticate(replacement.key), 'the replacement, never exposed, keeps working')
  t.same(await readdir(dataDir), [], 'no new replacement: the rotation\'s holder has one')
  t.equal((await keys.list()).length, 2)
})

t.test('exposed during a grace whose rotation stopped before the replacement: the grace ends all the same', async (t) => {
  const dataDir = await tempDir(t)
  const store = openMemoryEventStore()
  const old = await new KeyRing(store).issue({ account: 'acme', scopes: ['orders:read'] })
  await t.rejects(new KeyRing(failingAppendsAfter(store, 1)).rotate(old.record.keyId, 'routine', { graceMs: 3600_000 }))
  const keys = new KeyRing(store)
  t.ok(await keys.authenticate(old.key), 'revoked with a grace, nothing linked')
  t.same(await revokeExposedKey(keys, dataDir, old.key), { revokedKeyId: old.record.keyId, replacementKeyId: null })
  t.equal(await keys.authenticate(old.key), null)
})

t.test('a key in its grace exposed by concurrent requests: the grace ends once', async (t) => {
  const dataDir = await tempDir(t)
  const store = openMemoryEventStore()
  const keys = new KeyRing(store)
  const old = await keys.issue({ account: 'acme', scopes: ['orders:read'] })
  await keys.rotate(old.record.keyId, 'routine', { graceMs: 3600_000 })
  const results = await Promise.all(Array.from({ length: 5 }, () => revokeExposedKey(keys, dataDir, old.key)))
  t.equal(results.filter((result) => result !== null).length, 1)
  t.same((await store.readStream(`apikey-${old.record.keyId}`)).map((e) => e.type), ['KeyIssued', 'KeyRevoked', 'KeyRotated', 'KeyGraceEnded'])
})

t.test('a store failure while ending a grace reaches the caller', async (t) => {
  const dataDir = await tempDir(t)
  const store = openMemoryEventStore()
  const keys = new KeyRing(store)
  const old = await keys.issue({ account: 'acme', scopes: ['orders:read'] })
  await keys.rotate(old.record.keyId, 'routine', { graceMs: 3600_000 })
  await t.rejects(revokeExposedKey(new KeyRing(failingAppendsAfter(store, 0)), dataDir, old.key), { name: 'StoreUnavailableError' })
})

t.test('an expired key exposed is revoked for good, with no replacement; renewing it is refused', async (t) => {
  const dataDir = await tempDir(t)
  let now = new Date('2026-01-01T00:00:00Z')
  const keys = new KeyRing(openMemoryEventStore(), () => now)
  const expiring = await keys.issue({ account: 'acme', scopes: ['orders:read'], expiresAt: '2026-01-02T00:00:00Z' })
  now = new Date('2026-01-03T00:00:00Z')
  t.equal(await keys.authenticate(expiring.key), null, 'expired: it no longer authenticates')
  t.same(await revokeExposedKey(keys, dataDir, expiring.key), { revokedKeyId: expiring.record.keyId, replacementKeyId: null })
  t.match(await keys.get(expiring.record.keyId), { state: 'revoked', reason: 'insecure_connection' })
  t.same(await readdir(dataDir), [], 'no replacement written: an expired key gave no access to hand on')
  await t.rejects(keys.update(expiring.record.keyId, { expiresAt: null }), { code: 'key_revoked' }, 'renewal refused')
  t.equal(await keys.authenticate(expiring.key), null, 'and the exposed secret stays dead')
  t.equal(await revokeExposedKey(keys, dataDir, expiring.key), null, 'a second exposure changes nothing')
})

t.test('an expired key exposed by concurrent requests is revoked once', async (t) => {
  const dataDir = await tempDir(t)
  let now = new Date('2026-01-01T00:00:00Z')
  const keys = new KeyRing(openMemoryEventStore(), () => now)
  const expiring = await keys.issue({ account: 'acme', scopes: ['orders:read'], expiresAt: '2026-01-02T00:00:00Z' })
  now = new Date('2026-01-03T00:00:00Z')
  const results = await Promise.all(Array.from({ length: 3 }, () => revokeExposedKey(keys, dataDir, expiring.key)))
  t.equal(results.filter((result) => result !== null).length, 1)
})

t.test('a store failure while revoking an expired key reaches the caller', async (t) => {
  const dataDir = await tempDir(t)
  const store = openMemoryEventStore()
  let now = new Date('2026-01-01T00:00:00Z')
  const expiring = await new KeyRing(store, () => now).issue({ account: 'acme', scopes: ['orders:read'], expiresAt: '2026-01-02T00:00:00Z' })
  now = new Date('2026-01-03T00:00:00Z')
  await t.rejects(revokeExposedKey(new KeyRing(failingAppendsAfter(store, 0), () => now), dataDir, expiring.key), { name: 'StoreUnavailableError' })
})
