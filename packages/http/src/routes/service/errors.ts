import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { ERROR_CATALOGUE, isErrorCode, WaybillError } from '@waybill/domain'
import { operation } from '../../openapi/operation.js'
import { json, problems } from '../../openapi/responses.js'

/** GET /errors/:code, the target of every problem body's `type`: what the code means. */
export default async function errorDescriptions(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.get('/errors/:code', {
    config: { public: true, rateLimit: false },
    schema: operation({ id: 'describeError', summary: 'Describe one error code', tags: ['service'], keyed: false }, {
      params: Type.Object({ code: Type.String({ description: 'An error code, e.g. locked' }) }),
      response: {
        200: json(Type.Object({ code: Type.String(), status: Type.Integer(), title: Type.String() }), 'The code, its usual status and its title', { rateLimited: false }),
        ...problems(['not_found'], { keyed: false }),
      },
    }),
  }, async (request) => {
    const { code } = request.params
    if (!isErrorCode(code)) throw new WaybillError('not_found', `No error code ${code}`)
    return { code, status: ERROR_CATALOGUE[code].status, title: ERROR_CATALOGUE[code].title }
  })
}
