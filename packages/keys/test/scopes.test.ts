import t from 'tap'
import { WIRE_EVENTS } from '@waybill/domain'
import { isScope, SCOPE_FOR_EVENT, SCOPES } from '../src/scopes.js'

t.test('isScope knows the five scopes and nothing else', async (t) => {
  for (const scope of SCOPES) t.ok(isScope(scope), scope)
  for (const other of ['orders:fly', 'orders', '', 'ORDERS:READ', 'all']) t.notOk(isScope(other), other)
})

t.test('each wire event needs its own write scope; orders:read writes nothing', async (t) => {
  t.same(Object.keys(SCOPE_FOR_EVENT).sort(), [...WIRE_EVENTS].sort())
  const scopes = WIRE_EVENTS.map((event) => SCOPE_FOR_EVENT[event])
  t.equal(new Set(scopes).size, WIRE_EVENTS.length)
  t.notOk(scopes.includes('orders:read'))
  t.same(SCOPE_FOR_EVENT, { ORDER_ADD: 'orders:add', ORDER_UPDATE: 'orders:update', ORDER_COMPLETE: 'orders:complete', ORDER_CANCELED: 'orders:cancel' })
})
