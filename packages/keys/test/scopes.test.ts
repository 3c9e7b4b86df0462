import t from 'tap'
import { WIRE_EVENTS } from '@waybill/domain'
import { AUDIT_SCOPE, isScope, READ_ONLY_SCOPES, SCOPE_FOR_EVENT, SCOPES } from '../src/scopes.js'

t.test('isScope knows the five account scopes (and orders:audit, below) and nothing else', async (t) => {
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

t.test('orders:audit is a scope of its own: not among the account scopes, and it writes nothing', async (t) => {
  t.equal(AUDIT_SCOPE, 'orders:audit')
  t.ok(isScope(AUDIT_SCOPE))
  t.notOk((SCOPES as readonly string[]).includes(AUDIT_SCOPE), '--scopes all and the sandbox key do not hold it')
  t.notOk(Object.values(SCOPE_FOR_EVENT).includes(AUDIT_SCOPE))
  t.same(READ_ONLY_SCOPES, ['orders:read', 'orders:audit'])
})
