import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { WaybillError } from '@waybill/domain'
import type { ReadModel } from '@waybill/projector'
import { readAccess } from '../../auth/scope.js'
import { operation } from '../../openapi/operation.js'
import { ref } from '../../openapi/ref.js'
import { json, problems } from '../../openapi/responses.js'
import { accountRead, logAuditorRead } from './auditor.js'
import { auditedOrderView, orderView } from './order-view.js'
import { OneOrderQuery, OrderParams, OrderSchema } from './schemas.js'

/** GET /v1/orders/:order_id: the order's current state, from the read model. */
export function getOrder(fastify: FastifyInstance, readModel: ReadModel): void {
  fastify.withTypeProvider<TypeBoxTypeProvider>().get('/v1/orders/:order_id', {
    preValidation: readAccess,
    schema: operation({ id: 'getOrder', summary: 'Current state of one order (from the read model)', tags: ['orders'], keyed: true }, {
      params: OrderParams, querystring: OneOrderQuery,
      response: { 200: json(ref<typeof OrderSchema>('Order'), 'The order', { rateLimited: true }), ...problems(['bad_request', 'not_found'], { keyed: true }) },
    }),
  }, async (request) => {
    const { access, account } = accountRead(request)
    const row = readModel.getOrder(account, request.params.order_id)
    if (row === null) throw new WaybillError('not_found', `No order ${request.params.order_id}`)
    if (!access.auditor) return orderView(row)
    logAuditorRead(request, access.keyId, { account, order_id: row.order_id })
    return auditedOrderView(row)
  })
}
