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

t.test('the refusals of labels, expiry, grace and auditor keys name their key too, each in its own words', async (t) => {
  const codes: KeyErrorCode[] = ['wildcard_not_auditor', 'audit_outside_wildcard', 'invalid_label', 'invalid_expiry', 'invalid_grace', 'no_grace']
  const messages = codes.map((code) => keyErrorMessage(code, 'AbCdEfGh1234'))
  for (const message of messages) t.match(message, /AbCdEfGh1234/)
  t.equal(new Set([...messages, keyErrorMessage('key_unknown', 'AbCdEfGh1234')]).size, codes.length + 1)
  t.equal(keyErrorMessage('no_grace', 'AbCdEfGh1234'), 'key AbCdEfGh1234 has no grace left to end')
})
