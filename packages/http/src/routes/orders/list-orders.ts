import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { LIMITS, WaybillError } from '@waybill/domain'
import { timestampKey, type ListFilters, type ReadModel } from '@waybill/projector'
import { readAccess } from '../../auth/scope.js'
import { operation } from '../../openapi/operation.js'
import { ref } from '../../openapi/ref.js'
import { json, problems } from '../../openapi/responses.js'
import { auditedAccount, logAuditorRead, queryOf, readerOf } from './auditor.js'
import { decodeAuditCursor, decodeCursor, encodeAuditCursor, encodeCursor, type AuditFilters } from './cursor.js'
import { auditedOrderView, orderView } from './order-view.js'
import { ListQuery, OrderListSchema } from './schemas.js'


/**
 * GET /v1/orders: the key's own orders (or, for an auditor key, every account's, or the one
 * `?account=` names), filtered, in order_id order (auditors: (account, order_id)), a page at a time.
 */
export function listOrders(fastify: FastifyInstance, readModel: ReadModel): void {
  fastify.withTypeProvider<TypeBoxTypeProvider>().get('/v1/orders', {
    preValidation: readAccess,
    schema: operation({ id: 'listOrders', summary: 'Orders of the key\'s account, filtered, in order_id order, a page at a time', tags: ['orders'], keyed: true }, {
      querystring: ListQuery,
      response: { 200: json(ref<typeof OrderListSchema>('OrderList'), 'A page of orders', { rateLimited: true }), ...problems(['bad_request'], { keyed: true }) },
    }),
  }, async (request) => {
    const access = readerOf(request)
    const query = request.query
    // The schema knows every parameter; `account` is an auditor's only.
    if (!access.auditor && query.account !== undefined) throw new WaybillError('bad_request', 'account: not a parameter of this list')
    // Filled in by the schema's default when the request gives none.
    const limit = query.limit ?? LIMITS.ordersPageDefault
    const filters: ListFilters = {
      ...(query.status !== undefined ? { status: query.status } : {}),
      ...(query.customer !== undefined ? { customer: query.customer } : {}),
      ...(query.location !== undefined ? { location: query.location } : {}),
      ...(query.updated_since !== undefined ? { updatedSince: timestampKey(query.updated_since) } : {}),
    }
    if (access.auditor) return auditedList(readModel, request, access.keyId, filters, limit, query.cursor)
    const rows = readModel.listOrders(access.account, {
      ...filters,
      limit: limit + 1,
      ...(query.cursor !== undefined ? { afterOrderId: decodeCursor(query.cursor, filters) } : {}),
    })
    const page = rows.slice(0, limit)
    const last = page.at(-1)
    return { orders: page.map(orderView), next_cursor: rows.length > limit && last !== undefined ? encodeCursor(last.order_id, filters) : null }
  })
}

/** Every account's orders (or the one `?account=` names), in (account, order_id) order. */
function auditedList(readModel: ReadModel, request: FastifyRequest, keyId: string, listFilters: ListFilters, limit: number, cursor: string | undefined) {
  const named = queryOf(request).has('account') ? auditedAccount(request) : undefined
  const filters: AuditFilters = { ...listFilters, ...(named !== undefined ? { account: named } : {}) }
  const rows = readModel.listAllOrders({
    ...filters,
    limit: limit + 1,
    ...(cursor !== undefined ? { after: decodeAuditCursor(cursor, filters) } : {}),
  })
  const page = rows.slice(0, limit)
  const last = page.at(-1)
  logAuditorRead(request, keyId, { account: named ?? '*', order_id: null, orders: page.map((row) => ({ account: row.account, order_id: row.order_id })) })
  return {
    orders: page.map(auditedOrderView),
    next_cursor: rows.length > limit && last !== undefined ? encodeAuditCursor({ account: last.account, orderId: last.order_id }, filters) : null,
  }
}
