import t from 'tap'
import { WaybillError } from '@waybill/domain'
import { requirePrincipal, requireScope, type Principal } from '../src/principal.js'

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
