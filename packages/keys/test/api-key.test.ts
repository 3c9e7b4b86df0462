import t from 'tap'
import { findKeyTokens, redactKeyTokens, generateApiKey, hashApiKey, keyMatchesHash, parseApiKey } from '../src/api-key.js'

t.test('keys carry their public id and at least 256 bits of secret', async (t) => {
  const live = generateApiKey(false)
  t.match(live.key, /^wb_live_[0-9A-Za-z]{55}$/)
  t.same(parseApiKey(live.key), { keyId: live.keyId, test: false })
  const test = generateApiKey(true)
  t.match(test.key, /^wb_test_/)
  t.equal(parseApiKey(test.key)?.test, true)
  t.ok(43 * Math.log2(62) >= 256)
  t.not(generateApiKey(false).key, live.key)
})

t.test('only the hash is compared, and a wrong key does not match', async (t) => {
  const key = generateApiKey(false)
  t.equal(key.hash, hashApiKey(key.key))
  t.ok(keyMatchesHash(key.key, key.hash))
  t.notOk(keyMatchesHash(generateApiKey(false).key, key.hash))
  t.notOk(keyMatchesHash(key.key, 'abcd'))
})

t.test('malformed keys do not parse', async (t) => {
  for (const bad of ['', 'wb_live_', 'wb_prod_' + 'a'.repeat(55), 'wb_live_' + 'a'.repeat(54), 'wb_live_' + 'a'.repeat(54) + '-']) {
    t.equal(parseApiKey(bad), null, bad)
  }
})

t.test('key-shaped tokens are found anywhere in a text, and nothing else is', async (t) => {
  const live = generateApiKey(false).key
  const test = generateApiKey(true).key
  t.same(findKeyTokens(`GET /?api_key=${live}&x=1 HTTP/1.1\r\nX-Api-Key: ${test}\r\n`), [live, test])
  t.same(findKeyTokens(`{"key":"${live}"}`), [live], 'inside JSON')
  t.same(findKeyTokens(`${live}${live}`), [], 'not inside a longer run of key characters')
  t.same(findKeyTokens(`x${live}`), [], 'nor glued to a word')
  t.same(findKeyTokens(`${live.slice(0, -1)} and wb_prod_${'a'.repeat(55)}`), [], 'a short token or another prefix is no key')
  t.ok(findKeyTokens(`:${live}:`).every((token) => parseApiKey(token) !== null), 'every token found parses as a key')
})

t.test('keys are cut out of text meant for logs', async (t) => {
  const key = generateApiKey(false).key
  t.equal(redactKeyTokens(`/v1/orders?api_key=${key}&x=1`), '/v1/orders?api_key=wb_live_…&x=1')
  t.equal(redactKeyTokens('/v1/orders?status=pending'), '/v1/orders?status=pending')
})
