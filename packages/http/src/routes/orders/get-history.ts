import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { LIMITS } from '@waybill/domain'
import { verifyStreamChain, type EventStore } from '@waybill/event-store'
import type { AuditLog } from '@waybill/projector'
import { readAccess } from '../../auth/scope.js'
import { operation } from '../../openapi/operation.js'
import { ref } from '../../openapi/ref.js'
import { json, problems } from '../../openapi/responses.js'
import { readOrderStream } from './auditor.js'
import { eventPage } from './event-page.js'
import { historyCsv } from './history-csv.js'
import { statesAfter } from './order-states.js'
import { HistoryQuery, HistorySchema, OrderParams } from './schemas.js'

/**
 * The JSON answer. With `?format=csv` the same comes as text/csv (RFC 4180), which the document
 * says in words only: a second media type on one operation would make every generated client's
 * answer a union of the two, though a client chooses which by the query.
 */
const historyAnswer = json(ref<typeof HistorySchema>('History'), 'The order\'s history (with ?format=csv: text/csv, one row per event, the chain verdict last)', { rateLimited: true })

/**
 * GET /v1/orders/:order_id/events: the order's stored events read from the event store itself
 * (not the read model), each with the state after it, its leaf in the audit log and the verdict
 * on the stream's hash chain; `?format=csv` for the same as CSV.
 */
export function getHistory(fastify: FastifyInstance, auditLog: AuditLog, store: EventStore): void {
  fastify.withTypeProvider<TypeBoxTypeProvider>().get('/v1/orders/:order_id/events', {
    preValidation: readAccess,
    schema: operation({
      id: 'getOrderHistory', tags: ['orders'], keyed: true,
      summary: 'Full history of one order, read from the event store, with the state after each event and the chain verdict; ?format=csv for CSV',
    }, { params: OrderParams, querystring: HistoryQuery, response: { 200: historyAnswer, ...problems(['bad_request', 'not_found'], { keyed: true }) } }),
  }, async (request, reply) => {
    const orderId = request.params.order_id
    const { access, account, stream, events } = await readOrderStream(request, orderId, store)
    const page = eventPage(events, request.query.after, request.query.limit ?? LIMITS.historyPageDefault)
    const last = page.events.at(-1)
    const leaves = new Map(auditLog.leavesOf(stream, page.events[0]?.revision ?? 0, last?.revision ?? -1).map((leaf) => [leaf.revision, leaf.leafIndex]))
    const states = await statesAfter(events, page.from, page.from + page.events.length)
    const text = (value: unknown): string | null => typeof value === 'string' ? value : null
    const history = page.events.map((event, i) => ({
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
    if (request.query.format === 'csv') {
      // The next page's address in a Link header (RFC 8288): the body is the CSV.
      if (page.nextCursor !== null) reply.header('link', `<${nextPageUrl(request.url, page.nextCursor)}>; rel="next"`)
      return reply.type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="order-${account}-history.csv"`)
        // A string is sent as it is (no JSON serializer); the route's typed reply only knows JSON.
        // The export's last page says whether the whole stream's chain holds.
        .send(historyCsv(history, page.nextCursor === null ? verifyStreamChain(events) : null) as never)
    }
    // The page's events, and their link to the event before the page: a client reading every page
    // has checked the whole chain.
    const chain = verifyStreamChain(page.events, events[page.from - 1] ?? null)
    return { ...(access.auditor ? { account } : {}), order_id: orderId, events: history, next_cursor: page.nextCursor, chain }
  })
}

/** The request's own URL with `after` moved to the next page. */
function nextPageUrl(url: string, cursor: string): string {
  const [path = '', query = ''] = url.split('?')
  const params = new URLSearchParams(query)
  params.set('after', cursor)
  return `${path}?${params.toString()}`
}
