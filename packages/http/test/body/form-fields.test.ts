import t from 'tap'
import { WaybillError } from '@waybill/domain'
import { formFieldsToBody } from '../../src/body/form-fields.js'

const codeOf = (fn: () => unknown): string | undefined => {
  try { fn() } catch (error) { return error instanceof WaybillError ? error.code : 'other' }
  return undefined
}

t.test('name and name[field] become the JSON shape', async (t) => {
  const body = formFieldsToBody(new URLSearchParams('event=ORDER_ADD&event_payload[order_id]=a+b&event_payload[status]=pending'))
  t.same(JSON.parse(JSON.stringify(body)), { event: 'ORDER_ADD', event_payload: { order_id: 'a b', status: 'pending' } })
})

t.test('repeated fields and mixed shapes are bad_request', async (t) => {
  t.equal(codeOf(() => formFieldsToBody([['event', 'a'], ['event', 'b']])), 'bad_request')
  t.equal(codeOf(() => formFieldsToBody([['p[x]', 'a'], ['p[x]', 'b']])), 'bad_request')
  t.equal(codeOf(() => formFieldsToBody([['p', 'a'], ['p[x]', 'b']])), 'bad_request')
  t.equal(codeOf(() => formFieldsToBody([['p[x]', 'a'], ['p', 'b']])), 'bad_request')
})

t.test('only one level of brackets is understood', async (t) => {
  for (const name of ['p[x][y]', 'p[]', '[x]', 'p[x', 'a-b', '', 'p[0]']) {
    t.equal(codeOf(() => formFieldsToBody([[name, 'v']])), 'bad_request', name)
  }
  t.equal(codeOf(() => formFieldsToBody([['x'.repeat(100) + '[', 'v']])), 'bad_request')
})

t.test('prototype names are plain data and pollute nothing', async (t) => {
  const body = formFieldsToBody([['__proto__[polluted]', 'yes'], ['constructor', 'x']])
  t.equal(({} as Record<string, unknown>)['polluted'], undefined)
  t.equal(Object.getPrototypeOf(body), null)
  t.equal((body['__proto__'] as Record<string, unknown>)['polluted'], 'yes')
  t.equal(body['constructor'], 'x')
})
