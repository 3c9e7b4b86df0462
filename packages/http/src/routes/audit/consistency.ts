import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { WaybillError } from '@waybill/domain'
import { toHex } from '@waybill/merkle'
import type { AuditLog, HeadStore } from '@waybill/projector'
import { readAccess } from '../../auth/scope.js'
import { operation } from '../../openapi/operation.js'
import { json, problems } from '../../openapi/responses.js'
import { ConsistencyQuery, ConsistencySchema } from './schemas.js'

/** GET /v1/audit/consistency: the RFC 9162 consistency proof between two sizes, up to the latest head's. */
export function getConsistency(fastify: FastifyInstance, tree: AuditLog, heads: HeadStore): void {
  fastify.withTypeProvider<TypeBoxTypeProvider>().get('/v1/audit/consistency', {
    preValidation: readAccess,
    schema: operation({ id: 'getAuditConsistency', summary: 'RFC 9162 consistency proof between two tree sizes', tags: ['audit'], keyed: true }, {
      querystring: ConsistencyQuery,
      response: { 200: json(ConsistencySchema, 'The consistency proof', { rateLimited: true }), ...problems(['bad_request'], { keyed: true }) },
    }),
  }, async (request) => {
    const { first, second } = request.query
    const latest = heads.latest()?.tree_size ?? 0
    if (first > second) throw new WaybillError('bad_request', 'first: must be at most second')
    if (second > latest) throw new WaybillError('bad_request', `second: at most the latest signed head's tree_size (${latest})`)
    if (tree.size() < second) throw new WaybillError('server_error', 'The audit log is being rebuilt; retry', { status: 503, headers: { 'retry-after': '1' } })
    return { first, second, proof: tree.consistency(first, second).map(toHex) }
  })
}
