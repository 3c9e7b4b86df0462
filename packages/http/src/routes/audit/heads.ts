import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { LIMITS, WaybillError } from '@waybill/domain'
import type { HeadStore } from '@waybill/projector'
import { readAccess } from '../../auth/scope.js'
import { operation } from '../../openapi/operation.js'
import { json, problems } from '../../openapi/responses.js'
import { HeadListQuery, HeadListSchema, TreeHeadSchema } from './schemas.js'

/** GET /v1/audit/heads and /v1/audit/heads/latest: the signed tree heads, for any key that reads. */
export function getHeads(fastify: FastifyInstance, heads: HeadStore): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.get('/v1/audit/heads', {
    preValidation: readAccess,
    schema: operation({ id: 'getAuditHeads', summary: 'Signed tree heads, ascending, a page at a time', tags: ['audit'], keyed: true }, {
      querystring: HeadListQuery,
      response: { 200: json(HeadListSchema, 'A page of signed tree heads', { rateLimited: true }), ...problems(['bad_request'], { keyed: true }) },
    }),
  }, async (request) => {
    const limit = request.query.limit ?? LIMITS.headsPageDefault
    // `limit` tree sizes, one more to know whether a page follows; a rotation's size has two heads.
    const page = heads.list(request.query.after ?? null, limit + 1)
    const sizes = [...new Set(page.map((head) => head.tree_size))]
    const last = sizes[limit - 1]
    if (sizes.length <= limit || last === undefined) return { heads: page, next_cursor: null }
    return { heads: page.filter((head) => head.tree_size <= last), next_cursor: String(last) }
  })

  app.get('/v1/audit/heads/latest', {
    preValidation: readAccess,
    schema: operation({ id: 'getLatestAuditHead', summary: 'The latest signed tree head', tags: ['audit'], keyed: true }, {
      response: { 200: json(TreeHeadSchema, 'The latest signed tree head', { rateLimited: true }), ...problems(['not_found'], { keyed: true }) },
    }),
  }, async () => {
    const latest = heads.latest()
    if (latest === null) throw new WaybillError('not_found', 'No tree head has been signed yet')
    return latest
  })
}
