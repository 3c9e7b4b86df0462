import Fastify from 'fastify'
import t from 'tap'
import { openMemoryEventStore } from '@waybill/event-store'
import health from '../src/routes/service/health.js'

// A store that accepts the call and never answers: what a wedged cluster node looks like to a
// client that gives reads no deadline.
t.test('/readyz answers 503 within its own deadline when the store never answers', async (t) => {
  const store = { ...openMemoryEventStore(), headPosition: () => new Promise<never>(() => undefined) }
  const app = Fastify()
  await app.register(health, { store, readyTimeoutMs: 150 })
  t.teardown(() => app.close())
  const started = Date.now()
  const response = await app.inject({ method: 'GET', url: '/readyz' })
  // The app's error handler turns this WaybillError into 503 with Retry-After (errors.e2e); bare Fastify says 5xx.
  t.ok(response.statusCode >= 500, `status ${response.statusCode}`)
  t.match(response.body, /does not answer/)
  t.ok(Date.now() - started < 1_500, `answered in ${Date.now() - started} ms`)
  t.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200, 'liveness does not touch the store')
})
