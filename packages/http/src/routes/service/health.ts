import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { WaybillError } from '@waybill/domain'
import type { EventStore } from '@waybill/event-store'
import { operation } from '../../openapi/operation.js'
import { json, problems } from '../../openapi/responses.js'

/**
 * Probes for deployments, without a key: /healthz says the process answers, /readyz that the
 * event store answers too (a failing readiness takes the instance out of the balancer).
 */
/**
 * How long /readyz waits for the store. A probe must answer before its own timeout (3 s in
 * deploy/k8s), and the EventStoreDB client gives reads no deadline of its own.
 */
const READY_TIMEOUT_MS = 2_000

export default async function health(app: FastifyInstance, options: { readonly store: EventStore; readonly readyTimeoutMs?: number }): Promise<void> {
  const readyTimeoutMs = options.readyTimeoutMs ?? READY_TIMEOUT_MS
  const probe = (id: string, summary: string, description: string) => operation({ id, summary, tags: ['service'], keyed: false }, {
    response: { 200: json(Type.Object({ status: Type.String() }), description, { rateLimited: false }), ...problems([], { keyed: false }) },
  })
  app.get('/healthz', { config: { public: true, rateLimit: false }, schema: probe('getLiveness', 'Liveness', 'The process answers: {"status":"ok"}') },
    async () => ({ status: 'ok' }))
  app.get('/readyz', { config: { public: true, rateLimit: false },
    schema: probe('getReadiness', 'Readiness: the event store answers', 'The event store answers too: {"status":"ready"}') },
    async () => {
      let timer: NodeJS.Timeout | undefined
      try {
        await Promise.race([
          options.store.headPosition(),
          new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`no answer within ${readyTimeoutMs} ms`)), readyTimeoutMs) }),
        ])
      } catch (error) {
        throw new WaybillError('server_error', 'The event store does not answer',
          { status: 503, headers: { 'retry-after': '5' }, cause: error })
      } finally {
        clearTimeout(timer)
      }
      return { status: 'ready' }
    })
}
