import { readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { startTestServer } from './harness.js'
import { problem } from './helpers/problem.js'
import { addBody, orderId } from './fixtures.js'

t.test('first start writes the sandbox test key with mode 0600, and the cert key too', async (t) => {
  const s = await startTestServer(t)
  t.match(s.testKey, /^wb_test_/)
  t.equal((await stat(join(s.dataDir, 'test-api-key'))).mode & 0o777, 0o600)
  t.equal((await stat(join(s.dataDir, 'tls', 'key.pem'))).mode & 0o777, 0o600)
  const [record] = await s.keys.list()
  t.match(record, { account: 'sandbox', test: true, state: 'active' })
  t.same([...(record?.scopes ?? [])].sort(), ['orders:add', 'orders:cancel', 'orders:complete', 'orders:read', 'orders:update'])
})

t.test('a key sent over plain HTTP is revoked and replaced before the answer', async (t) => {
  const s = await startTestServer(t)
  const live = await s.keys.issue({ account: 'acme', scopes: ['orders:add', 'orders:read'] })
  const reply = await s.sendPlain('POST', '/v1/deliveries', { key: live.key, body: JSON.stringify(addBody(orderId())), contentType: 'application/json' })
  t.equal(reply.status, 403)
  t.equal(reply.json.code, 'insecure_connection')
  t.notMatch(reply.text, /wb_live_/, 'the replacement never travels over plain HTTP')
  // The answer left only after the revocation: the key is already refused.
  t.equal((await s.send('GET', '/ping', { key: live.key })).json.code, 'invalid_api_key')
  const old = await s.keys.get(live.record.keyId)
  t.equal(old?.state, 'rotated')
  const replacementId = old?.replacedBy as string
  const replacement = await s.keys.get(replacementId)
  t.match(replacement, { account: 'acme', state: 'active', replaces: live.record.keyId })
  t.same(replacement?.scopes, ['orders:add', 'orders:read'])
  const file = join(s.dataDir, 'replaced-keys', replacementId)
  t.equal((await stat(file)).mode & 0o777, 0o600)
  const newKey = (await readFile(file, 'utf8')).trim()
  t.match((await s.send('GET', '/ping', { key: newKey })).json, { account: 'acme', key_id: replacementId })
  // The same key again over plain HTTP changes nothing more.
  t.equal((await s.sendPlain('GET', '/ping', { key: live.key })).json.code, 'insecure_connection')
  t.equal((await s.keys.list()).filter((k) => k.replaces === live.record.keyId).length, 1)
})

t.test('the sandbox test key seen over plain HTTP: test-api-key holds the replacement', async (t) => {
  const s = await startTestServer(t)
  t.equal((await s.sendPlain('GET', '/ping')).json.code, 'insecure_connection')
  t.equal((await s.send('GET', '/ping')).json.code, 'invalid_api_key')
  const rewritten = (await readFile(join(s.dataDir, 'test-api-key'), 'utf8')).trim()
  t.not(rewritten, s.testKey)
  t.match((await s.send('GET', '/ping', { key: rewritten })).json, { account: 'sandbox', test: true })
})

t.test('plain HTTP beats every other check: a missing key, an empty body (docs/contract.md#order-of-checks)', async (t) => {
  const s = await startTestServer(t)
  const plain = await s.newKey('acme', ['orders:add'])
  problem(t, await s.sendPlain('GET', '/ping', { key: null }), 403, 'insecure_connection')
  problem(t, await s.sendPlain('POST', '/v1/deliveries', { key: null }), 403, 'insecure_connection')
  problem(t, await s.sendPlain('POST', '/v1/deliveries', { key: plain, body: '' }), 403, 'insecure_connection')
})

t.test('X-Forwarded-Proto: http is plain HTTP only from a trusted proxy', async (t) => {
  const s = await startTestServer(t, { trustProxy: ['127.0.0.1'] })
  const key = await s.newKey('acme', ['orders:read'])
  t.equal((await s.send('GET', '/ping', { key, headers: { 'x-forwarded-proto': 'https' } })).status, 200)
  t.equal((await s.send('GET', '/ping', { key, headers: { 'x-forwarded-proto': 'http' } })).json.code, 'insecure_connection')
  t.equal((await s.send('GET', '/ping', { key })).json.code, 'invalid_api_key', 'the key was revoked')
})

t.test('X-Forwarded-Proto from an untrusted address is ignored', async (t) => {
  const s = await startTestServer(t)
  t.equal((await s.send('GET', '/ping', { headers: { 'x-forwarded-proto': 'http' } })).status, 200)
  t.equal((await s.sendPlain('GET', '/ping', { key: null, headers: { 'x-forwarded-proto': 'https' } })).json.code, 'insecure_connection')
})

t.test('every key a plain-HTTP request exposes is revoked: repeated or comma-joined headers, Authorization', async (t) => {
  const s = await startTestServer(t)
  const [a, b, c] = await Promise.all(['acme', 'acme', 'beta'].map((account) => s.keys.issue({ account, scopes: ['orders:read'] })))
  const exposed = await s.sendPlain('GET', '/ping', { key: null, headers: { 'service-api-key': [a!.key, a!.key, `${b!.key}, junk`] } })
  t.equal(exposed.json.code, 'insecure_connection')
  const viaAuthorization = await s.sendPlain('GET', '/ping', { key: null, headers: { authorization: `Bearer ${c!.key}` } })
  t.equal(viaAuthorization.json.code, 'insecure_connection')
  for (const issued of [a!, b!, c!]) {
    t.equal((await s.send('GET', '/ping', { key: issued.key })).json.code, 'invalid_api_key', `${issued.record.keyId} revoked`)
    t.equal((await s.keys.get(issued.record.keyId))?.state, 'rotated')
  }
})

t.test('the plain-HTTP listener refuses even when a trusted proxy header claims https', async (t) => {
  const s = await startTestServer(t, { trustProxy: ['127.0.0.1'] })
  const issued = await s.keys.issue({ account: 'acme', scopes: ['orders:read'] })
  const r = await s.sendPlain('GET', '/ping', { key: issued.key, headers: { 'x-forwarded-proto': 'https' } })
  t.equal(r.status, 403)
  t.equal(r.json.code, 'insecure_connection')
  t.equal((await s.keys.get(issued.record.keyId))?.state, 'rotated', 'and the key it carried is revoked')
})

t.test('through a trusted proxy, X-Forwarded-Proto: http revokes the key on an undecodable path too', async (t) => {
  const s = await startTestServer(t, { trustProxy: ['127.0.0.1'] })
  const issued = await s.keys.issue({ account: 'acme', scopes: ['orders:read'] })
  const r = await s.send('GET', '/v1/orders/%ZZ', { key: issued.key, headers: { 'x-forwarded-proto': 'http' } })
  t.equal(r.json.code, 'insecure_connection')
  t.equal((await s.keys.get(issued.record.keyId))?.state, 'rotated')
})

t.test('a path with bad percent-encoding gets a problem body; over plain HTTP it still revokes the key', async (t) => {
  const s = await startTestServer(t)
  const bad = await s.send('GET', '/v1/orders/%ZZ')
  t.equal(bad.status, 400)
  t.match(bad.headers['content-type'], /^application\/problem\+json/)
  t.match(bad.json, { code: 'bad_request', status: 400, type: '/errors/bad_request' })
  t.ok(bad.headers['x-request-id'], 'with a request id')
  const issued = await s.keys.issue({ account: 'acme', scopes: ['orders:read'] })
  const plain = await s.sendPlain('GET', '/v1/orders/%ZZ', { key: issued.key })
  t.equal(plain.json.code, 'insecure_connection')
  t.equal((await s.send('GET', '/ping', { key: issued.key })).json.code, 'invalid_api_key')
})
