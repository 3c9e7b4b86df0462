import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { AUDIT_SCOPE, requirePrincipal, SCOPES } from '@waybill/keys'
import { operation } from '../../openapi/operation.js'
import { json, problems } from '../../openapi/responses.js'

/** GET /ping (docs/contract.md#ping): the service runs, the key is valid, and what it may do; any scope will do. */
export default async function ping(app: FastifyInstance): Promise<void> {
  app.get('/ping', {
    schema: operation({ id: 'ping', summary: 'Check that the service runs and the API key is valid', tags: ['service'], keyed: true }, {
      response: {
        200: json(Type.Object({
          status: Type.Literal('ok'),
          account: Type.String(),
          key_id: Type.String(),
          scopes: Type.Array(Type.Enum([...SCOPES, AUDIT_SCOPE]), { description: 'What the key may do' }),
          test: Type.Boolean({ description: 'A sandbox test key' }),
        }), 'The key is valid: its account, id and scopes', { rateLimited: true }),
        ...problems([], { keyed: true }),
      },
    }),
  }, async (request) => {
    const principal = requirePrincipal(request.principal)
    return { status: 'ok' as const, account: principal.account, key_id: principal.keyId, scopes: [...principal.scopes], test: principal.test }
  })
}
