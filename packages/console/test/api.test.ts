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

function answering(status: number, body: unknown): void {
  globalThis.fetch = async () => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/problem+json' } })
}

t.test('a 401 hands the problem to the refusal handler, and the page that asked never resumes', async (t) => {
  const original = globalThis.fetch
  t.teardown(() => { globalThis.fetch = original })
  const refused: Problem[] = []
  const api = new Api('wb_live_key', (problem) => refused.push(problem))
  answering(401, revoked)
  const outcome = await Promise.race([api.history('A1', undefined).then(() => 'resolved', () => 'rejected'), new Promise((done) => setTimeout(() => done('pending'), 50))])
  t.equal(outcome, 'pending', 'no error page is drawn over the sign-in page')
  t.match(refused, [{ status: 401, code: 'invalid_api_key' }])
  answering(403, { ...revoked, status: 403, code: 'api_key_forbidden' })
  const forbidden: unknown = await api.listOrders({}).catch((error: unknown) => error)
  t.ok(forbidden instanceof ApiError && forbidden.problem.code === 'api_key_forbidden', 'other refusals are the page\'s to show')
  t.equal(refused.length, 1)
  answering(401, revoked)
  const unhandled: unknown = await new Api('wb_live_key').ping().catch((error: unknown) => error)
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
