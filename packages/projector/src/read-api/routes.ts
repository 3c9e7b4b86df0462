import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyRequest, FastifySchema } from 'fastify'
import { isRealUtcTime, streamNameFor, WaybillError } from '@waybill/domain'
import { problemResponses } from '@waybill/domain/wire'
import { createHash } from 'node:crypto'
import { verifyStreamChain, type EventStore } from '@waybill/event-store'
import { requireReadAccess, type Principal, type ReadAccess } from '@waybill/keys'
import { auditedAccount, logAuditorRead, queryOf } from './audit.js'
import { auditRoutes, type AuditApiOptions } from './audit-routes.js'
import { historyCsv, recordedImage, statesAfter } from './history.js'
import { decodeAuditCursor, decodeCursor, encodeAuditCursor, encodeCursor, type AuditFilters } from './cursor.js'
import { auditedOrderView, orderView } from './order-view.js'
import type { ListFilters, ReadModel } from '../orders/reader.js'
import { timestampKey } from '../orders/timestamp-key.js'
import {
  HistoryQuery, HistorySchema, ImageBytes, ListQuery, OrderListSchema, OrderParams, OrderSchema,
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
  /** The audit routes (heads, public key, proofs) and the history's leaf indexes; not served when absent. */
  readonly audit?: AuditApiOptions
}

const LIST_PARAMETERS = new Set(['status', 'customer', 'location', 'updated_since', 'limit', 'cursor'])
const AUDIT_LIST_PARAMETERS = new Set([...LIST_PARAMETERS, 'account'])
const oneOrderErrors = problemResponses(['bad_request', 'not_found'], { keyed: true })

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
    schema: documented('getOrder', 'Current state of one order (from the read model)', {
      params: OrderParams, response: { 200: OrderSchema, ...oneOrderErrors },
    }),
  }, async (request) => {
    const { access, row } = orderOf(request, request.params)
    return access.auditor ? auditedOrderView(row) : orderView(row)
  })

  app.get('/v1/orders', {
    attachValidation: true,
    schema: documented('listOrders', 'Orders of the key\'s account, filtered, in order_id order, a page at a time', {
      querystring: ListQuery, response: { 200: OrderListSchema, ...problemResponses(['bad_request'], { keyed: true }) },
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
    schema: documented('getOrderHistory', 'Full history of one order, read from the event store, with the state after each event and the chain verdict; ?format=csv for CSV', {
      params: OrderParams, querystring: HistoryQuery, response: { 200: HistorySchema, ...oneOrderErrors },
    }),
  }, async (request, reply) => {
    const { access, account } = readerOf(request)
    const orderId = request.params.order_id
    const stream = streamNameFor(account, orderId)
    const events = await store.readStream(stream)
    if (events.length === 0) throw new WaybillError('not_found', `No order ${orderId}`)
    if (access.auditor) logAuditorRead(request, access.keyId, { account, order_id: orderId })
    const leaves = new Map(options.audit?.log.leavesOf(stream).map((leaf) => [leaf.revision, leaf.leafIndex]))
    const states = statesAfter(events)
    const text = (value: unknown): string | null => typeof value === 'string' ? value : null
    const history = events.map((event, i) => ({
      event_id: event.id,
      stream,
      type: event.type,
      data: event.data,
      event_date: text(event.data.event_date),
      received_at: text(event.metadata.received_at),
      revision: event.revision,
      ...(access.auditor ? { position: event.position.commit.toString() } : {}),
      leaf_index: leaves.get(event.revision) ?? null,
      key_id: text(event.metadata.key_id),
      request_id: text(event.metadata.request_id),
      state_after: states[i] ?? {},
      hash: event.hash,
      prev_hash: event.metadata.prev_hash,
    }))
    const chain = verifyStreamChain(events)
    if (request.query.format === 'csv') {
      return reply.type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="order-${account}-history.csv"`)
        // A string is sent as it is (no JSON serializer); the route's typed reply only knows JSON.
        .send(historyCsv(history, chain) as never)
    }
    return { ...(access.auditor ? { account } : {}), order_id: orderId, events: history, chain }
  })

  withAudit(fastify, options, readerOf)

  for (const image of ['pod', 'signature'] as const) {
    app.get(`/v1/orders/:order_id/${image}`, {
      attachValidation: true,
      schema: documented(image === 'pod' ? 'getOrderPod' : 'getOrderSignature', `The ${image} image of a completed order, as stored`, {
        params: OrderParams, response: { 200: ImageBytes, ...oneOrderErrors },
      }),
    }, async (request, reply) => {
      const { row } = orderOf(request, request.params)
      // The image is the one the order's events recorded, read from the event store: the read
      // model's row is a projection, and a row changed on disk must not choose the bytes served.
      const ref = recordedImage(await store.readStream(streamNameFor(row.account, row.order_id)), image)
      if (ref === null) throw new WaybillError('not_found', `Order ${row.order_id} has no ${image}`)
      if (row[image]?.sha256 !== ref.sha256) {
        request.log.error({ blob: ref.sha256, row_blob: row[image]?.sha256 ?? null, image, account: row.account, order_id: row.order_id },
          `the read model's ${image} differs from the one the order's events recorded; serving the recorded one (run waybill verify)`)
      }
      const bytes = await blobs.get(ref.sha256)
      // Served only when they are what the event recorded (docs/audit.md#images): the client
      // learns nothing of why, the log names the blob.
      const problem = bytes === null ? 'is missing from the blob store'
        : createHash('sha256').update(bytes).digest('hex') !== ref.sha256 ? 'does not hash to its name (changed on disk)' : null
      if (problem !== null || bytes === null) {
        request.log.error({ blob: ref.sha256, image, account: row.account, order_id: row.order_id }, `image blob ${ref.sha256} ${problem ?? ''}`)
        throw new WaybillError('server_error')
      }
      return reply.type(ref.media_type).header('cache-control', 'private, max-age=31536000, immutable').send(bytes)
    })
  }
}

/** The audit routes share the read API's access rule. */
function withAudit(app: FastifyInstance, options: ReadApiOptions, readerOf: (request: FastifyRequest) => { access: ReadAccess; account: string }): void {
  if (options.audit === undefined) return
  auditRoutes(app, { ...options.audit, store: options.store, principalOf: options.principalOf, readerOf })
}

/** Adds the OpenAPI members (read by @fastify/swagger), keeping the schema's type for the route. */
function documented<Schema extends FastifySchema>(operationId: string, summary: string, schema: Schema): Schema {
  return { ...schema, operationId, summary, tags: ['orders'], security: [{ apiKey: [] }] }
}

/**
 * updated_since as the read model's `updated_at_key`. The domain's own check, not Date.parse,
 * which rolls an impossible date over (February 30 to March 2) and keeps whole milliseconds only.
 */
function sinceOf(text: string): string {
  if (!isRealUtcTime(text)) throw new WaybillError('bad_request', 'updated_since: not a real UTC time')
  return timestampKey(text)
}
