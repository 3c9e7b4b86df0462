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

t.test('an address that keeps presenting refused keys is refused unheard until its window ends; other addresses are not', async (t) => {
  const s = await testApp(t, { failedKeyLimit: { max: 5, windowMs: 60_000 } })
  const guesser = '203.0.113.7'
  const good = await s.newKey('acme', ['orders:read'])
  const lookups: number[] = []
  const authenticate = s.keys.authenticate.bind(s.keys)
  s.keys.authenticate = async (presented) => { lookups.push(1); return authenticate(presented) }
  for (let i = 0; i < 5; i += 1) {
    const refused = await s.send('GET', '/ping', { key: `wb_live_${'x'.repeat(12)}${String(i).padStart(43, 'y')}`, from: guesser })
    t.equal(refused.json.code, 'invalid_api_key', `guess ${i + 1}: invalid_api_key`)
  }
  const before = lookups.length
  const throttled = await s.send('GET', '/ping', { key: `wb_live_${'z'.repeat(55)}`, from: guesser })
  t.equal(throttled.status, 429)
  t.equal(throttled.json.code, 'rate_limited')
  t.match(throttled.headers['retry-after'], /^\d+$/)
  t.equal(lookups.length, before, 'refused before any key lookup')
  t.equal((await s.send('GET', '/ping', { key: good, from: guesser })).status, 429, 'a valid key from that address waits too')
  t.equal((await s.send('GET', '/ping', { key: good, from: '198.51.100.9' })).status, 200, 'a valid key from another address is unaffected')
  t.equal((await s.send('GET', '/ping', { key: 'wb_live_nope', from: '198.51.100.9' })).json.code, 'invalid_api_key', 'and another address has its own count')
})
