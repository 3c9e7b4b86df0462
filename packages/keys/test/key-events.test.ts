import t from 'tap'
import { categoryOf } from '@waybill/event-store'
import { asKeyEvent, KEY_CATEGORY, keyStreamName } from '../src/key-events.js'

t.test('one stream per key, in the apikey category', async (t) => {
  t.equal(keyStreamName('AbCdEfGh1234'), 'apikey-AbCdEfGh1234')
  t.equal(categoryOf(keyStreamName('AbCdEfGh1234')), KEY_CATEGORY)
})

t.test('a stored event becomes a key event with its id, nothing more', async (t) => {
  const data = { key_id: 'AbCdEfGh1234', reason: 'leaked', revoked_at: '2025-03-02T09:00:00.000Z' }
  t.same(asKeyEvent({ id: 'event-1', type: 'KeyRevoked', data }), { id: 'event-1', type: 'KeyRevoked', data })
})
