import t from 'tap'
import { ERROR_CATALOGUE, WaybillError, isErrorCode } from '../src/errors.js'

t.test('the catalogue holds the codes and statuses of docs/contract.md#error-codes', async (t) => {
  const statuses = Object.fromEntries(Object.entries(ERROR_CATALOGUE).map(([code, { status }]) => [code, status]))
  t.same(statuses, {
    insecure_connection: 403, api_key_missing: 401, invalid_api_key: 401, api_key_forbidden: 403, no_body: 400,
    unknown_event: 400, bad_request: 400, not_found: 404, method_not_allowed: 405, locked: 409, conflict: 409, too_many_events: 409, payload_too_large: 413,
    unsupported_media_type: 415, rate_limited: 429, server_error: 500,
  })
})

t.test('isErrorCode knows the catalogue and nothing inherited', async (t) => {
  t.ok(isErrorCode('locked'))
  t.notOk(isErrorCode('toString'))
  t.notOk(isErrorCode('__proto__'))
  t.notOk(isErrorCode(42))
})

t.test('a WaybillError carries code, status, detail and headers', async (t) => {
  const plain = new WaybillError('conflict')
  t.match(plain, { name: 'WaybillError', code: 'conflict', status: 409, detail: undefined, headers: {} })
  t.equal(plain.message, ERROR_CATALOGUE.conflict.title)
  const cause = new Error('disk full')
  const busy = new WaybillError('server_error', 'store unavailable', { status: 503, headers: { 'retry-after': '1' }, cause })
  t.match(busy, { status: 503, detail: 'store unavailable', message: 'store unavailable', headers: { 'retry-after': '1' }, cause })
})
