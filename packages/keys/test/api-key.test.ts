import t from 'tap'
import { generateApiKey, hashApiKey, keyMatchesHash, parseApiKey } from '../src/api-key.js'

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
