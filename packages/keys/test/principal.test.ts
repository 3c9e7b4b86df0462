import t from 'tap'
import { WaybillError } from '@waybill/domain'
import { requirePrincipal, requireReadAccess, requireScope, type Principal } from '../src/principal.js'

const reader: Principal = { keyId: 'AbCdEfGh1234', account: 'acme', scopes: ['orders:read'], test: false }

t.test('requireScope: the principal when its key holds the scope', async (t) => {
  t.equal(requireScope(reader, 'orders:read'), reader)
})

t.test('requireScope: api_key_forbidden naming the scope it lacks', async (t) => {
  t.throws(() => requireScope(reader, 'orders:add'), new WaybillError('api_key_forbidden', 'This key lacks the orders:add scope'))
  const error = (() => { try { requireScope(reader, 'orders:cancel') } catch (e) { return e } })()
  t.match(error, { code: 'api_key_forbidden', status: 403, detail: 'This key lacks the orders:cancel scope' })
})

t.test('no principal: api_key_missing, from both checks', async (t) => {
  t.equal(requirePrincipal(reader), reader)
  for (const check of [() => requirePrincipal(null), () => requireScope(null, 'orders:read')]) {
    t.throws(check, { name: 'WaybillError', code: 'api_key_missing', status: 401 })
  }
})

t.test('requireReadAccess: an ordinary key reads its own account with orders:read, as before', async (t) => {
  t.same(requireReadAccess(reader), { auditor: false, keyId: 'AbCdEfGh1234', account: 'acme' })
  const writer: Principal = { ...reader, scopes: ['orders:add'] }
  t.throws(() => requireReadAccess(writer), new WaybillError('api_key_forbidden', 'This key lacks the orders:read scope'))
  const auditScoped: Principal = { ...reader, scopes: ['orders:audit'] }
  t.throws(() => requireReadAccess(auditScoped), { code: 'api_key_forbidden' }, 'orders:audit on a key of one account reads nothing more')
  t.throws(() => requireReadAccess(null), { code: 'api_key_missing' })
})

t.test('requireReadAccess: a key of every account (*) is an auditor with orders:audit, and nothing without it', async (t) => {
  const auditor: Principal = { keyId: 'Auditor12345', account: '*', scopes: ['orders:audit'], test: false }
  t.same(requireReadAccess(auditor), { auditor: true, keyId: 'Auditor12345' })
  t.throws(() => requireReadAccess({ ...auditor, scopes: ['orders:read'] }), new WaybillError('api_key_forbidden', 'This key lacks the orders:audit scope'))
})
