import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { HeadStore } from '@waybill/projector'
import { readAccess } from '../../auth/scope.js'
import { operation } from '../../openapi/operation.js'
import { json, problems } from '../../openapi/responses.js'
import { SealListSchema } from './schemas.js'

/** GET /v1/audit/seals: the seals of the log (docs/audit.md#sealing), for any key that reads heads. */
export function getSeals(fastify: FastifyInstance, heads: HeadStore): void {
  fastify.withTypeProvider<TypeBoxTypeProvider>().get('/v1/audit/seals', {
    preValidation: readAccess,
    schema: operation({ id: 'getAuditSeals', summary: 'Every seal of the log, with the heads signed before it and their proofs', tags: ['audit'], keyed: true }, {
      response: { 200: json(SealListSchema, 'Every seal of the log, oldest first', { rateLimited: true }), ...problems([], { keyed: true }) },
    }),
  }, async () => ({ seals: heads.seals().map(({ seal_id: _id, sealed_heads: sealed, ...seal }) => ({ ...seal, sealed_heads: sealed.map(({ head, proof }) => ({ head, proof: [...proof] })) })) }))
}
