import t from 'tap'
import { keyErrorMessage, KeyRingError, type KeyErrorCode } from '../src/key-errors.js'

t.test('every refusal names the key it was about', async (t) => {
  const codes: KeyErrorCode[] = [
    'invalid_account', 'test_key_outside_sandbox', 'no_scopes', 'key_exists', 'key_unknown', 'key_revoked', 'key_rotated', 'key_active',
  ]
  const messages = codes.map((code) => keyErrorMessage(code, 'AbCdEfGh1234'))
  for (const message of messages) t.match(message, /AbCdEfGh1234/)
  t.equal(new Set(messages).size, codes.length, 'and says something different for each')
  t.equal(keyErrorMessage('key_unknown', 'AbCdEfGh1234'), 'no key with id AbCdEfGh1234')
  t.equal(keyErrorMessage('key_revoked', 'AbCdEfGh1234'), 'key AbCdEfGh1234 is already revoked')
})

t.test('KeyRingError carries its code', async (t) => {
  const error = new KeyRingError('key_active', 'still active')
  t.ok(error instanceof Error)
  t.match(error, { name: 'KeyRingError', code: 'key_active', message: 'still active' })
})
