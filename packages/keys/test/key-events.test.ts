import t from 'tap'
import { categoryOf } from '@waybill/event-store'
import { asKeyEvent, KEY_CATEGORY, KEY_USE_CATEGORY, keyStreamName, keyUseStreamName } from '../src/key-events.js'

t.test('one stream per key, in the apikey category', async (t) => {
  t.equal(keyStreamName('AbCdEfGh1234'), 'apikey-AbCdEfGh1234')
  t.equal(categoryOf(keyStreamName('AbCdEfGh1234')), KEY_CATEGORY)
})

t.test('a stored event becomes a key event with its id, nothing more', async (t) => {
  const data = { key_id: 'AbCdEfGh1234', reason: 'leaked', revoked_at: '2025-03-02T09:00:00.000Z' }
  t.same(asKeyEvent({ id: 'event-1', type: 'KeyRevoked', data }), { id: 'event-1', type: 'KeyRevoked', data })
})

t.test('a key\'s uses have a stream of their own, outside the apikey category that list and authenticate read', async (t) => {
  t.equal(keyUseStreamName('AbCdEfGh1234'), 'apikeyuse-AbCdEfGh1234')
  t.equal(categoryOf(keyUseStreamName('AbCdEfGh1234')), KEY_USE_CATEGORY)
  t.not(KEY_USE_CATEGORY, KEY_CATEGORY)
})
