import t from 'tap'
import { isLoopback, parseAccount, parseEndpointUrl, parseEventNames, WebhookInputError } from '../../src/index.js'

t.test('endpoint URLs: https anywhere, plain http only to loopback; each refusal names what is wrong', async (t) => {
  for (const ok of ['https://hooks.example.com/waybill', 'https://10.0.0.5:8443/x?token=abc', 'http://127.0.0.1:9000/hook', 'http://127.8.9.10/', 'http://localhost:3000/h', 'http://[::1]:8080/h']) {
    t.equal(parseEndpointUrl(ok).href, new URL(ok).href, ok)
  }
  const refused: Array<[string, RegExp]> = [
    ['hooks.example.com/waybill', /^"hooks\.example\.com\/waybill" is not a URL/],
    ['ftp://example.com/', /^"ftp:\/\/example\.com\/" is not an https: URL$/],
    ['http://hooks.example.com/h', /^"http:\/\/hooks\.example\.com\/h" is not HTTPS: plain http: is taken only for a loopback address/],
    ['http://10.0.0.1/h', /is not HTTPS/],
    ['http://127.0.0.1.example.com/h', /is not HTTPS/],
    ['https://user:pass@example.com/h', /^"example\.com": no credentials in the URL/],
    ['https://example.com/h#frag', /a URL with a #fragment/],
    [`https://example.com/${'a'.repeat(2100)}`, /longer than 2048 characters/],
  ]
  for (const [text, message] of refused) t.throws(() => parseEndpointUrl(text), { name: 'WebhookInputError', message }, text.slice(0, 60))
  t.ok(isLoopback('127.0.0.1') && isLoopback('localhost') && isLoopback('[::1]'))
  t.notOk(isLoopback('128.0.0.1') || isLoopback('::1') || isLoopback('localhost.example'))
})

t.test('--events takes the wire names, as stored types; --account takes an account id', async (t) => {
  t.same(parseEventNames('ORDER_ADD, ORDER_COMPLETE,ORDER_ADD'), ['OrderAdded', 'OrderCompleted'])
  t.same(parseEventNames('ORDER_UPDATE,ORDER_CANCELED'), ['OrderUpdated', 'OrderCanceled'])
  t.throws(() => parseEventNames('ORDER_ADD,ORDER_SHIPPED'), new WebhookInputError('--events: unknown event "ORDER_SHIPPED"; events: ORDER_ADD, ORDER_UPDATE, ORDER_COMPLETE, ORDER_CANCELED'))
  t.throws(() => parseEventNames(' , '), { message: /^--events: name at least one event/ })
  t.equal(parseAccount('acme_2'), 'acme_2')
  t.throws(() => parseAccount('Acme-Corp'), { message: '--account: "Acme-Corp" must be lower-case letters, digits and _ (at most 64 characters)' })
})
