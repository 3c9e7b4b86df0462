import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { ProblemSchema } from '@waybill/domain'
import { requirePrincipal } from '@waybill/keys'

/** GET /ping (docs/contract.md#ping): the service runs and the key is valid; any scope will do. */
export default async function ping(app: FastifyInstance): Promise<void> {
  app.get('/ping', {
    schema: {
      summary: 'Check that the service runs and the API key is valid',
      tags: ['service'],
      security: [{ apiKey: [] }],
      response: {
        200: Type.Object({
          status: Type.Literal('ok'),
          account: Type.String(),
          key_id: Type.String(),
          test: Type.Boolean(),
        }),
        '4xx': ProblemSchema,
        '5xx': ProblemSchema,
      },
    },
  }, async (request) => {
    const principal = requirePrincipal(request.principal)
    return { status: 'ok' as const, account: principal.account, key_id: principal.keyId, test: principal.test }
  })
}
