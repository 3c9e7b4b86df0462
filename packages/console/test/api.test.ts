import t from 'tap'
import { Api, ApiError, type Problem } from '../web/api.js'
import { keyRefused } from '../web/key-refused.js'
import { loadSession, saveSession } from '../web/session.js'

/** sessionStorage as the browser has it, for the session module. */
const store = new Map<string, string>()
Object.assign(globalThis, {
  sessionStorage: {
    getItem: (key: string) => store.get(key) ?? null,
    setItem: (key: string, value: string) => void store.set(key, value),
    removeItem: (key: string) => void store.delete(key),
  },
})

const revoked: Problem = { status: 401, code: 'invalid_api_key', title: 'Unauthorized', detail: 'The API key was revoked' }

/** The API as the tests make it answer: what `answering` last set, for every request; the requests it was sent. */
let answer = new Response()
const sent: Request[] = []
const fetch = async (request: Request): Promise<Response> => {
  sent.push(request)
  return answer.clone()
}
const baseUrl = 'https://waybill.test'

function answering(status: number, body: unknown, type = 'application/problem+json'): void {
  answer = new Response(typeof body === 'string' ? body : JSON.stringify(body), { status, statusText: 'Refused', headers: { 'content-type': type } })
}

t.test('a 401 hands the problem to the refusal handler, and the page that asked never resumes', async (t) => {
  const refused: Problem[] = []
  const api = new Api('wb_live_key', { baseUrl, fetch, onRefused: (problem) => refused.push(problem) })
  answering(401, revoked)
  const outcome = await Promise.race([api.history('A1', undefined).then(() => 'resolved', () => 'rejected'), new Promise((done) => setTimeout(() => done('pending'), 50))])
  t.equal(outcome, 'pending', 'no error page is drawn over the sign-in page')
  t.match(refused, [{ status: 401, code: 'invalid_api_key' }])
  answering(403, { ...revoked, status: 403, code: 'api_key_forbidden' })
  const forbidden: unknown = await api.listOrders({}, undefined).catch((error: unknown) => error)
  t.ok(forbidden instanceof ApiError && forbidden.problem.code === 'api_key_forbidden', 'other refusals are the page\'s to show')
  t.equal(refused.length, 1)
  answering(401, revoked)
  const unhandled: unknown = await new Api('wb_live_key', { baseUrl, fetch }).ping().catch((error: unknown) => error)
  t.ok(unhandled instanceof ApiError && unhandled.problem.status === 401, 'without a handler (sign-in checks the key itself), a 401 is an error')
})

t.test('a refused key ends the session and shows the sign-in page once, saying why', async (t) => {
  saveSession({ key: 'wb_live_key', account: 'acme', keyId: 'abc', auditor: false })
  const shown: string[] = []
  const handler = keyRefused((notice) => shown.push(notice))
  handler(revoked)
  handler(revoked)
  t.equal(loadSession(), null, 'the key is gone from sessionStorage')
  t.equal(shown.length, 1, 'one sign-in page for the requests that failed together')
  t.match(shown[0], /The API refused your key: .*The API key was revoked \(invalid_api_key\)/)
})

t.test('requests go to the document\'s routes with the key in the header only, never from a cache', async (t) => {
  sent.length = 0
  const api = new Api('wb_live_key', { baseUrl, fetch })
  answering(200, { orders: [], next_cursor: null }, 'application/json')
  t.same(await api.listOrders({ status: 'completed', limit: 25, customer: undefined }, 'acme'), { orders: [], next_cursor: null })
  await api.listOrders({ limit: 1 }, undefined)
  answering(200, { order_id: 'A 1/x', events: [], chain: { ok: true } }, 'application/json')
  t.match(await api.history('A 1/x', 'acme'), { order_id: 'A 1/x' })
  answering(200, '\u0089PNG', 'image/png')
  const image = await api.image('A1', 'signature', undefined)
  t.equal(await image.text(), '\u0089PNG', 'an image is read as a blob')
  t.same(sent.map((request) => request.url), [
    `${baseUrl}/v1/orders?status=completed&limit=25&account=acme`,
    `${baseUrl}/v1/orders?limit=1`,
    `${baseUrl}/v1/orders/A%201%2Fx/events?account=acme`,
    `${baseUrl}/v1/orders/A1/signature`,
  ], 'the account only when the page names one; the order id encoded in the path')
  for (const request of sent) {
    t.equal(request.headers.get('service-api-key'), 'wb_live_key')
    t.notMatch(request.url, /wb_live_key/, 'never in the URL')
    t.equal(request.cache, 'no-store')
  }
})

t.test('an answer that is not a problem body still gives the page a problem to show', async (t) => {
  const api = new Api('wb_live_key', { baseUrl, fetch })
  answering(502, '<html>Bad gateway</html>', 'text/html')
  const error: unknown = await api.publicKey().catch((reason: unknown) => reason)
  t.ok(error instanceof ApiError)
  t.same(error instanceof ApiError ? error.problem : null, { status: 502, code: 'http_502', title: 'Refused', detail: 'Refused' })
})
