import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { ERROR_CATALOGUE, isErrorCode, WaybillError } from '@waybill/domain'
import { problemResponses } from '@waybill/domain/wire'

/** GET /errors/:code, the target of every problem body's `type`: what the code means. */
export default async function errorDescriptions(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.get('/errors/:code', {
    config: { public: true, rateLimit: false },
    schema: {
      operationId: 'describeError',
      summary: 'Describe one error code',
      tags: ['service'],
      params: Type.Object({ code: Type.String({ description: 'An error code, e.g. locked' }) }),
      response: {
        200: Type.Object({ code: Type.String(), status: Type.Integer(), title: Type.String() }, { description: 'The code, its usual status and its title' }),
        ...problemResponses(['not_found'], { keyed: false }),
      },
    },
  }, async (request) => {
    const { code } = request.params
    if (!isErrorCode(code)) throw new WaybillError('not_found', `No error code ${code}`)
    return { code, status: ERROR_CATALOGUE[code].status, title: ERROR_CATALOGUE[code].title }
  })
}
