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
  answering(200, { order_id: 'A 1/x', events: [], next_cursor: null, chain: { ok: true } }, 'application/json')
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
  const error: unknown = await api.publicKeys().catch((reason: unknown) => reason)
  t.ok(error instanceof ApiError)
  t.same(error instanceof ApiError ? error.problem : null, { status: 502, code: 'http_502', title: 'Refused', detail: 'Refused' })
})

t.test('an order\'s history, proofs and CSV are read page after page, whole', async (t) => {
  const pages = new Map<string, Response>()
  const event = (revision: number) => ({ event_id: `e${revision}`, revision })
  const paged = async (request: Request): Promise<Response> => {
    const url = new URL(request.url)
    const after = url.searchParams.get('after')
    const format = url.searchParams.get('format')
    const key = `${url.pathname}|${after ?? ''}|${format ?? ''}`
    return (pages.get(key) ?? new Response('{}', { status: 404 })).clone()
  }
  const json = (body: unknown, headers: Record<string, string> = {}) => new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json', ...headers } })
  pages.set('/v1/orders/A1/events||', json({ order_id: 'A1', events: [event(0), event(1)], next_cursor: '1', chain: { ok: true } }))
  pages.set('/v1/orders/A1/events|1|', json({ order_id: 'A1', events: [event(2)], next_cursor: null, chain: { ok: true } }))
  const head = (size: number) => ({ tree_size: size, root_hash: 'r', timestamp: 't', signature: 's', key_id: 'k' })
  pages.set('/v1/orders/A1/proof||', json({ head: head(3), entries: [event(0), event(1)], next_cursor: '1' }))
  pages.set('/v1/orders/A1/proof|1|', json({ head: head(3), entries: [event(2)], next_cursor: null }))
  const csvPage = (body: string, next: string | null) =>
    new Response(body, { status: 200, headers: { 'content-type': 'text/csv', ...(next === null ? {} : { link: `</v1/orders/A1/events?format=csv&after=${next}>; rel="next"` }) } })
  pages.set('/v1/orders/A1/events||csv', csvPage('revision,event_id\r\n0,e0\r\n1,e1\r\n', '1'))
  pages.set('/v1/orders/A1/events|1|csv', csvPage('revision,event_id\r\n2,e2\r\nchain: ok\r\n', null))
  const api = new Api('wb_live_key', { baseUrl, fetch: paged })
  const history = await api.history('A1', undefined)
  t.same(history.events.map((e) => e.revision), [0, 1, 2])
  t.equal(history.next_cursor, null)
  const proof = await api.proof('A1', undefined)
  t.same(proof.entries.map((e) => e.revision), [0, 1, 2])
  t.equal(proof.head?.tree_size, 3)
  t.equal(await api.historyCsv('A1', undefined), 'revision,event_id\r\n0,e0\r\n1,e1\r\n2,e2\r\nchain: ok\r\n', 'one header, every row, the verdict last')
  // A head signed between two pages of proofs: asked again until both pages are against one head.
  let asked = 0
  pages.set('/v1/orders/A1/proof|1|', json({ head: head(4), entries: [event(2)], next_cursor: null }))
  const racing = async (request: Request): Promise<Response> => {
    if (new URL(request.url).pathname.endsWith('/proof') && ++asked === 3) pages.set('/v1/orders/A1/proof||', json({ head: head(4), entries: [event(0), event(1)], next_cursor: '1' }))
    return paged(request)
  }
  const again = await new Api('wb_live_key', { baseUrl, fetch: racing }).proof('A1', undefined)
  t.equal(again.head?.tree_size, 4)
  t.equal(asked, 4, 'the pages were asked again once')
})
