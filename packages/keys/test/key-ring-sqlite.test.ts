import { join } from 'node:path'
import t from 'tap'
import { openSqliteEventStore } from '@waybill/event-store'
import { KeyRing } from '../src/key-ring.js'
import { tempDir } from './stores.js'

t.test('on SQLite on disk: a rotation holds across a reopen of the store, and a lost race is still a KeyRingError', async (t) => {
  const path = join(await tempDir(t), 'events.sqlite')
  const first = await openSqliteEventStore({ path })
  const keys = new KeyRing(first)
  const issued = await keys.issue({ account: 'acme', scopes: ['orders:add', 'orders:read'] })
  const outcomes = await Promise.allSettled([keys.rotate(issued.record.keyId, 'race'), keys.rotate(issued.record.keyId, 'race')])
  t.same(outcomes.map((outcome) => outcome.status).sort(), ['fulfilled', 'rejected'])
  t.match(outcomes.find((outcome) => outcome.status === 'rejected'), { reason: { name: 'KeyRingError' } })
  const replacement = outcomes.find((outcome) => outcome.status === 'fulfilled')
  await first.close()

  const reopened = await openSqliteEventStore({ path })
  t.teardown(() => reopened.close())
  const again = new KeyRing(reopened)
  t.equal(await again.authenticate(issued.key), null, 'the revocation is durable')
  t.match(await again.get(issued.record.keyId), { state: 'rotated', reason: 'race' })
  t.ok(replacement?.status === 'fulfilled' && await again.authenticate(replacement.value.key), 'the replacement authenticates')
  t.same((await again.list()).map((record) => record.state), ['rotated', 'active'])
})
