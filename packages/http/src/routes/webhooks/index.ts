import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { DeliveryLog } from '@waybill/webhooks'
import { auditorAccess } from '../../auth/scope.js'
import { operation } from '../../openapi/operation.js'
import { json, problems } from '../../openapi/responses.js'
import { DeliveryPageSchema, DeliveryQuery, WebhookEndpointListSchema } from './schemas.js'

export interface WebhookRoutesOptions {
  readonly log: DeliveryLog
}

/**
 * The webhook routes (docs/contract.md#webhooks), for auditors and operators: the endpoints the
 * operator added (never their secrets) and the delivery log. They span every account and show
 * where the service sends data, so only an auditor key (`orders:audit`) reads them.
 */
export default async function webhookRoutes(fastify: FastifyInstance, options: WebhookRoutesOptions): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.get('/v1/webhooks/endpoints', {
    preValidation: auditorAccess,
    schema: operation({ id: 'listWebhookEndpoints', summary: 'The webhook endpoints, their state and backlog (auditor keys)', tags: ['webhooks'], keyed: true }, {
      response: { 200: json(WebhookEndpointListSchema, 'Every webhook endpoint', { rateLimited: true }), ...problems([], { keyed: true }) },
    }),
  }, async () => ({ endpoints: options.log.endpoints() }))

  app.get('/v1/webhooks/deliveries', {
    preValidation: auditorAccess,
    schema: operation({ id: 'listWebhookDeliveries', summary: 'The delivery log, newest attempt first, a page at a time (auditor keys)', tags: ['webhooks'], keyed: true }, {
      querystring: DeliveryQuery,
      response: { 200: json(DeliveryPageSchema, 'A page of delivery attempts', { rateLimited: true }), ...problems(['bad_request'], { keyed: true }) },
    }),
  }, async (request) => {
    const { endpoint, failed, before, limit = 50 } = request.query
    const page = options.log.attempts({
      ...(endpoint === undefined ? {} : { endpointId: endpoint }),
      failed: failed === 'true',
      ...(before === undefined ? {} : { before }),
      limit: limit + 1,
    })
    const shown = page.slice(0, limit)
    return { deliveries: shown, next_cursor: page.length > limit ? String(shown.at(-1)?.id) : null }
  })
}
