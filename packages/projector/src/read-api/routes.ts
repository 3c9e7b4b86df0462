import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyRequest, FastifySchema } from 'fastify'
import { isRealUtcTime, ProblemSchema, streamNameFor, WaybillError } from '@waybill/domain'
import type { EventStore } from '@waybill/event-store'
import { requireReadAccess, type Principal, type ReadAccess } from '@waybill/keys'
import { auditedAccount, logAuditorRead, queryOf } from './audit.js'
import { decodeAuditCursor, decodeCursor, encodeAuditCursor, encodeCursor, type AuditFilters } from './cursor.js'
import { auditedOrderView, orderView } from './order-view.js'
import type { ListFilters, ReadModel } from '../orders/reader.js'
import { timestampKey } from '../orders/timestamp-key.js'
import {
  HistorySchema, ImageBytes, ListQuery, OrderListSchema, OrderParams, OrderSchema,
} from './schemas.js'

/** Where the image bytes are (the ingress' content-addressed blob store). */
export interface BlobReader {
  get(sha256: string): Promise<Buffer | null>
}

export interface ReadApiOptions {
  readonly readModel: ReadModel
  readonly store: EventStore
  readonly blobs: BlobReader
  /**
   * The authenticated caller of `request`, or null (the ingress passes `request.principal`).
   * Passed in so that the projector does not depend on the ingress; the scope check itself is
   * `requireReadAccess` from @waybill/keys, built on the ingress' `requireScope`.
   */
  readonly principalOf: (request: FastifyRequest) => Principal | null
}

const LIST_PARAMETERS = new Set(['status', 'customer', 'location', 'updated_since', 'limit', 'cursor'])
const AUDIT_LIST_PARAMETERS = new Set([...LIST_PARAMETERS, 'account'])
const errors = { '4xx': ProblemSchema, '5xx': ProblemSchema }

/**
 * The read API: GET /v1/orders[/…]. Every route needs a key with `orders:read` and sees only its
 * own account's orders, or an auditor key (account `*`, `orders:audit`), which reads any account
 * and names the order's in `?account=` (docs/contract.md#auditor-keys); each of its reads is
 * logged with its key id. Current state comes from the read model (which trails the log by a
 * moment); history comes from the event store itself.
 */
export async function readApi(fastify: FastifyInstance, options: ReadApiOptions): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const { readModel, store, blobs } = options

  const rejectInvalid = (request: FastifyRequest): void => {
    if (request.validationError !== undefined) {
      throw new WaybillError('bad_request', request.validationError.message)
    }
  }
  /** The caller's access and the account a one-order route reads, checked in the contract's order. */
  const readerOf = (request: FastifyRequest): { access: ReadAccess; account: string } => {
    const access = requireReadAccess(options.principalOf(request))
    rejectInvalid(request)
    return { access, account: access.auditor ? auditedAccount(request) : access.account }
  }
  const orderOf = (request: FastifyRequest, params: { readonly order_id: string }) => {
    const { access, account } = readerOf(request)
    const row = readModel.getOrder(account, params.order_id)
    if (row === null) throw new WaybillError('not_found', `No order ${params.order_id}`)
    if (access.auditor) logAuditorRead(request, access.keyId, { account, order_id: row.order_id })
    return { access, row }
  }

  app.get('/v1/orders/:order_id', {
    attachValidation: true,
    schema: documented('Current state of one order (from the read model)', {
      params: OrderParams, response: { 200: OrderSchema, ...errors },
    }),
  }, async (request) => {
    const { access, row } = orderOf(request, request.params)
    return access.auditor ? auditedOrderView(row) : orderView(row)
  })

  app.get('/v1/orders', {
    attachValidation: true,
    schema: documented('Orders of the key\'s account, filtered, in order_id order, a page at a time', {
      querystring: ListQuery, response: { 200: OrderListSchema, ...errors },
    }),
  }, async (request) => {
    const access = requireReadAccess(options.principalOf(request))
    rejectInvalid(request)
    const known = access.auditor ? AUDIT_LIST_PARAMETERS : LIST_PARAMETERS
    for (const name of queryOf(request).keys()) {
      if (!known.has(name)) throw new WaybillError('bad_request', `${name}: not a parameter of this list`)
    }
    const query = request.query
    const limit = query.limit ?? 50
    const filters: ListFilters = {
      ...(query.status !== undefined ? { status: query.status } : {}),
      ...(query.customer !== undefined ? { customer: query.customer } : {}),
      ...(query.location !== undefined ? { location: query.location } : {}),
      ...(query.updated_since !== undefined ? { updatedSince: sinceOf(query.updated_since) } : {}),
    }
    if (access.auditor) return auditedList(request, access.keyId, filters, limit, query.cursor)
    const rows = readModel.listOrders(access.account, {
      ...filters,
      limit: limit + 1,
      ...(query.cursor !== undefined ? { afterOrderId: decodeCursor(query.cursor, filters) } : {}),
    })
    const page = rows.slice(0, limit)
    const last = page.at(-1)
    return { orders: page.map(orderView), next_cursor: rows.length > limit && last !== undefined ? encodeCursor(last.order_id, filters) : null }
  })

  /** Every account's orders (or the one `?account=` names), in (account, order_id) order. */
  const auditedList = (request: FastifyRequest, keyId: string, listFilters: ListFilters, limit: number, cursor: string | undefined) => {
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

  app.get('/v1/orders/:order_id/events', {
    attachValidation: true,
    schema: documented('Full history of one order, read from the event store', {
      params: OrderParams, response: { 200: HistorySchema, ...errors },
    }),
  }, async (request) => {
    const { access, account } = readerOf(request)
    const orderId = request.params.order_id
    const events = await store.readStream(streamNameFor(account, orderId))
    if (events.length === 0) throw new WaybillError('not_found', `No order ${orderId}`)
    if (access.auditor) logAuditorRead(request, access.keyId, { account, order_id: orderId })
    return {
      ...(access.auditor ? { account } : {}),
      order_id: orderId,
      events: events.map((event) => ({
        type: event.type,
        data: event.data,
        event_date: typeof event.data.event_date === 'string' ? event.data.event_date : null,
        received_at: typeof event.metadata.received_at === 'string' ? event.metadata.received_at : null,
        revision: event.revision,
        ...(access.auditor ? { position: event.position.commit.toString() } : {}),
        hash: event.hash,
        prev_hash: event.metadata.prev_hash,
      })),
    }
  })

  for (const image of ['pod', 'signature'] as const) {
    app.get(`/v1/orders/:order_id/${image}`, {
      attachValidation: true,
      schema: documented(`The ${image} image of a completed order, as stored`, {
        params: OrderParams, response: { 200: ImageBytes, ...errors },
      }),
    }, async (request, reply) => {
      const { row } = orderOf(request, request.params)
      const ref = row[image]
      if (ref === null) throw new WaybillError('not_found', `Order ${row.order_id} has no ${image}`)
      const bytes = await blobs.get(ref.sha256)
      if (bytes === null) throw new WaybillError('server_error', `${image} ${ref.sha256} is missing from the blob store`)
      return reply.type(ref.media_type).header('cache-control', 'private, max-age=31536000, immutable').send(bytes)
    })
  }
}

/** Adds the OpenAPI members (read by @fastify/swagger), keeping the schema's type for the route. */
function documented<Schema extends FastifySchema>(summary: string, schema: Schema): Schema {
  return { ...schema, summary, tags: ['orders'], security: [{ apiKey: [] }] }
}

/**
 * updated_since as the read model's `updated_at_key`. The domain's own check, not Date.parse,
 * which rolls an impossible date over (February 30 to March 2) and keeps whole milliseconds only.
 */
function sinceOf(text: string): string {
  if (!isRealUtcTime(text)) throw new WaybillError('bad_request', 'updated_since: not a real UTC time')
  return timestampKey(text)
}
