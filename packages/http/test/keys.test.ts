import t from 'tap'
import { testApp } from './helpers/app.js'

t.test('revoked, rotated and unknown keys are invalid_api_key', async (t) => {
  const s = await testApp(t)
  const a = await s.keys.issue({ account: 'acme', scopes: ['orders:read'] })
  const b = await s.keys.issue({ account: 'acme', scopes: ['orders:read'] })
  await s.keys.revoke(a.record.keyId, 'test')
  const replacement = await s.keys.rotate(b.record.keyId, 'test')
  t.equal((await s.send('GET', '/ping', { key: a.key })).json.code, 'invalid_api_key')
  t.equal((await s.send('GET', '/ping', { key: b.key })).json.code, 'invalid_api_key')
  t.equal((await s.send('GET', '/ping', { key: replacement.key })).status, 200)
  // A well-formed key whose secret differs from the stored hash.
  const forged = replacement.key.slice(0, -1) + (replacement.key.endsWith('a') ? 'b' : 'a')
  t.equal((await s.send('GET', '/ping', { key: forged })).json.code, 'invalid_api_key')
  // A test-prefixed key with a live key's id and secret.
  t.equal((await s.send('GET', '/ping', { key: replacement.key.replace('wb_live_', 'wb_test_') })).json.code, 'invalid_api_key')
  await t.rejects(s.keys.issue({ account: 'acme', scopes: ['orders:read'], test: true }), /sandbox/)
  await t.rejects(s.keys.issue({ account: 'Acme-1', scopes: ['orders:read'] }), /account/)
  await t.rejects(s.keys.revoke(a.record.keyId, 'again'), /already revoked/)
})

t.test('a key id alone learns nothing: only the whole key hears why and when it was revoked', async (t) => {
  const s = await testApp(t)
  const exposed = await s.keys.issue({ account: 'acme', scopes: ['orders:read'] })
  await s.keys.rotate(exposed.record.keyId, 'insecure_connection')
  const told = await s.send('GET', '/ping', { key: exposed.key })
  t.match(told.json, { code: 'invalid_api_key', detail: /revoked at .* because it was sent over plain HTTP/ }, 'the holder of the key is told')
  // The id is public (history entries, logs); the secret is not.
  const secret = exposed.key.slice(`wb_live_${exposed.record.keyId}`.length)
  const forged = `wb_live_${exposed.record.keyId}${secret.startsWith('A') ? 'B' : 'A'}${secret.slice(1)}`
  t.not(forged, exposed.key)
  const guessed = await s.send('GET', '/ping', { key: forged })
  t.match(guessed.json, { code: 'invalid_api_key', detail: 'The API key is not valid' }, 'a guess with the id and another secret is told nothing')
})
