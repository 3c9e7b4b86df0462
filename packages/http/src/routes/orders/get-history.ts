import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { LIMITS } from '@waybill/domain'
import type { EventStore } from '@waybill/event-store'
import type { SubjectKeyStore } from '@waybill/personal-data'
import type { AuditLog } from '@waybill/projector'
import { readAccess } from '../../auth/scope.js'
import { operation } from '../../openapi/operation.js'
import { ref } from '../../openapi/ref.js'
import { json, problems } from '../../openapi/responses.js'
import { sendJsonWithItems, sendPieces } from './answer-in-pieces.js'
import { findOrderStream } from './auditor.js'
import { CSV_HEADER, csvRows, csvVerdict } from './history-csv.js'
import { readHistoryPage, type HistoryEntry } from './history-page.js'
import { HistoryEntrySchema, HistoryQuery, HistorySchema, OrderParams } from './schemas.js'

/**
 * The JSON answer. With `?format=csv` the same comes as text/csv (RFC 4180), which the document
 * says in words only: a second media type on one operation would make every generated client's
 * answer a union of the two, though a client chooses which by the query.
 */
const historyAnswer = json(ref<typeof HistorySchema>('History'), 'The order\'s history (with ?format=csv: text/csv, one row per event, the chain verdict last)', { rateLimited: true })

/** One event of the answer: serialized with it, each as the History schema's serializer writes its events. */
const HISTORY_ENTRY = { ...ref<typeof HistoryEntrySchema>('HistoryEntry') }

/**
 * GET /v1/orders/:order_id/events: the order's stored events read from the event store itself
 * (not the read model), each as stored (what its leaf commits to: the personal part sealed) and
 * opened (its fields as sent, each personal one null once erased), with the state after it, its
 * leaf in the audit log and the verdict on the stream's hash chain; `?format=csv` for the same as CSV.
 */
export function getHistory(fastify: FastifyInstance, auditLog: AuditLog, store: EventStore, keys: Pick<SubjectKeyStore, 'get'>): void {
  fastify.withTypeProvider<TypeBoxTypeProvider>().get('/v1/orders/:order_id/events', {
    preValidation: readAccess,
    schema: operation({
      id: 'getOrderHistory', tags: ['orders'], keyed: true,
      summary: 'Full history of one order, read from the event store, with the state after each event and the chain verdict; ?format=csv for CSV',
    }, { params: OrderParams, querystring: HistoryQuery, response: { 200: historyAnswer, ...problems(['bad_request', 'not_found'], { keyed: true }) } }),
  }, async (request, reply) => {
    const orderId = request.params.order_id
    const { access, account, stream } = await findOrderStream(request, orderId, store)
    const csv = request.query.format === 'csv'
    const page = await readHistoryPage(store, auditLog, {
      stream, key: keys.get(account, orderId), after: request.query.after, limit: request.query.limit ?? LIMITS.historyPageDefault, positions: access.auditor,
      // The CSV's last page says whether the whole stream's chain holds.
      chain: csv ? 'stream' : 'page',
      write: csv ? csvRows : jsonItems(reply.compileSerializationSchema(HISTORY_ENTRY)),
    })
    if (csv) {
      // The next page's address in a Link header (RFC 8288): the body is the CSV.
      if (page.nextCursor !== null) reply.header('link', `<${nextPageUrl(request.url, page.nextCursor)}>; rel="next"`)
      reply.header('content-disposition', `attachment; filename="order-${account}-history.csv"`)
      const verdict = page.nextCursor === null ? [Buffer.from(csvVerdict(page.chain))] : []
      return sendPieces(reply, 'text/csv; charset=utf-8', [Buffer.from(CSV_HEADER), ...page.runs, ...verdict])
    }
    const answer = { ...(access.auditor ? { account } : {}), order_id: orderId, events: [], next_cursor: page.nextCursor, chain: page.chain }
    return sendJsonWithItems(reply, answer, 'events', page.runs)
  })
}

/** Writes entries as the items of a JSON array, each by `serialize`. */
function jsonItems(serialize: (entry: HistoryEntry) => string) {
  return (entries: readonly HistoryEntry[]): string => entries.map((entry) => serialize(entry)).join(',')
}

/** The request's own URL with `after` moved to the next page. */
function nextPageUrl(url: string, cursor: string): string {
  const [path = '', query = ''] = url.split('?')
  const params = new URLSearchParams(query)
  params.set('after', cursor)
  return `${path}?${params.toString()}`
}
