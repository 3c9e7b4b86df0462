import { setImmediate } from 'node:timers/promises'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { LIMITS } from '@waybill/domain'
import type { EventStore, RecordedEvent } from '@waybill/event-store'
import { toHex } from '@waybill/merkle'
import { eventLeafHash, type AuditLog, type HeadStore } from '@waybill/projector'
import { readAccess } from '../../auth/scope.js'
import { operation } from '../../openapi/operation.js'
import { json, problems } from '../../openapi/responses.js'
import { sendJsonWithItems } from '../orders/answer-in-pieces.js'
import { findOrderStream } from '../orders/auditor.js'
import { readEventPage } from '../orders/event-page.js'
import { OrderParams, ProofQuery } from '../orders/schemas.js'
import { streamSlices } from '../orders/stream-slices.js'
import { ProofSchema } from './schemas.js'

/** Proofs built between two turns given back to the event loop. */
const PROOF_SLICE = 25
/** One entry, serialized as the answer's serializer writes each of its entries. */
const PROOF_ENTRY = { ...ProofSchema.properties.entries.items }

/** GET /v1/orders/:order_id/proof: each event's leaf and its inclusion proof against the latest signed head. */
export function getProof(fastify: FastifyInstance, tree: AuditLog, store: EventStore, heads: HeadStore): void {
  fastify.withTypeProvider<TypeBoxTypeProvider>().get('/v1/orders/:order_id/proof', {
    preValidation: readAccess,
    schema: operation({
      id: 'getOrderProof', tags: ['orders', 'audit'], keyed: true,
      summary: 'Each event of one order: its leaf in the audit log and its inclusion proof against the latest signed head',
    }, { params: OrderParams, querystring: ProofQuery, response: { 200: json(ProofSchema, 'The order\'s leaves and inclusion proofs', { rateLimited: true }), ...problems(['bad_request', 'not_found'], { keyed: true }) } }),
  }, async (request, reply) => {
    const { stream } = await findOrderStream(request, request.params.order_id, store)
    // A proof needs nothing of the events before the page: the stream is read from the page on.
    const { after } = request.query
    const events: RecordedEvent[] = []
    const nextCursor = await readEventPage(streamSlices(store, stream, after === undefined ? 0 : after + 1), after, request.query.limit ?? LIMITS.historyPageDefault,
      (_read, onPage) => { events.push(...onPage) })
    const size = tree.size()
    const head = heads.latest()
    const serializeEntry = reply.compileSerializationSchema(PROOF_ENTRY)
    const runs: Buffer[] = []
    for (let from = 0; from < events.length; from += PROOF_SLICE) {
      // A proof is a few dozen look-ups: the event loop is given back every few dozen proofs,
      // and each run of them is serialized as it is built.
      if (from > 0) await setImmediate()
      const run = events.slice(from, from + PROOF_SLICE)
      const leaves = new Map(tree.leavesOf(stream, run[0]?.revision ?? 0, run.at(-1)?.revision ?? -1).map((leaf) => [leaf.revision, leaf]))
      runs.push(Buffer.from(run.map((event) => {
        const leaf = leaves.get(event.revision)
        const covered = leaf !== undefined && head !== null && leaf.leafIndex < head.tree_size && head.tree_size <= size
        return serializeEntry({
          event_id: event.id,
          revision: event.revision,
          leaf_index: leaf?.leafIndex ?? null,
          leaf_hash: toHex(leaf?.hash ?? eventLeafHash(event)),
          audit_path: covered ? tree.inclusion(leaf.leafIndex, head.tree_size).map(toHex) : null,
        })
      }).join(',')))
    }
    return sendJsonWithItems(reply, { head, next_cursor: nextCursor, entries: [] }, 'entries', runs)
  })
}
