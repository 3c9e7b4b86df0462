import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { NotReadyError } from '../../errors/not-ready.js'
import { operation } from '../../openapi/operation.js'
import { json, problems } from '../../openapi/responses.js'
import type { Readiness } from '../../readiness/readiness.js'

/**
 * Probes for deployments, without a key (docs/contract.md#health-probes): /healthz says the
 * process answers (liveness: nothing else is looked at), /readyz that this instance can do its
 * work, or, 503 with the reasons, why not (readiness/readiness.ts): a failing readiness takes
 * the instance out of the balancer until the cause goes.
 */
export default async function health(app: FastifyInstance, options: { readonly readiness: Readiness }): Promise<void> {
  const probe = (id: string, summary: string, description: string) => operation({ id, summary, tags: ['service'], keyed: false }, {
    response: { 200: json(Type.Object({ status: Type.String() }), description, { rateLimited: false }), ...problems([], { keyed: false }) },
  })
  app.get('/healthz', { config: { public: true, rateLimit: false }, schema: probe('getLiveness', 'Liveness', 'The process answers: {"status":"ok"}') },
    async () => ({ status: 'ok' }))
  app.get('/readyz', {
    config: { public: true, rateLimit: false },
    schema: probe('getReadiness', 'Readiness: this instance can take requests',
      'Writes do not fail for lack of space, the event store answers, the read model and the audit log can be read, and the projector is not stuck: {"status":"ready"}. '
      + 'Otherwise 503 server_error whose detail names each reason, e.g. "Not ready: disk full"'),
  }, async () => {
    const failing = await options.readiness.failing()
    if (failing.length > 0) throw new NotReadyError(failing.map((f) => f.reason))
    return { status: 'ready' }
  })
}
