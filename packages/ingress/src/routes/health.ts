import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { ProblemSchema, WaybillError } from '@waybill/domain'
import type { EventStore } from '@waybill/event-store'

/**
 * Probes for deployments, without a key: /healthz says the process answers, /readyz that the
 * event store answers too (a failing readiness takes the instance out of the balancer).
 */
export default async function health(app: FastifyInstance, options: { readonly store: EventStore }): Promise<void> {
  const common = { tags: ['service'], response: { 200: Type.Object({ status: Type.String() }), '5xx': ProblemSchema } }
  app.get('/healthz', { config: { public: true, rateLimit: false }, schema: { summary: 'Liveness', ...common } },
    async () => ({ status: 'ok' }))
  app.get('/readyz', { config: { public: true, rateLimit: false }, schema: { summary: 'Readiness: the event store answers', ...common } },
    async () => {
      try {
        await options.store.headPosition()
      } catch (error) {
        throw new WaybillError('server_error', 'The event store does not answer',
          { status: 503, headers: { 'retry-after': '5' }, cause: error })
      }
      return { status: 'ready' }
    })
}
