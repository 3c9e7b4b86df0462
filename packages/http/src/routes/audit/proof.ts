import { setImmediate } from 'node:timers/promises'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { LIMITS } from '@waybill/domain'
import type { EventStore } from '@waybill/event-store'
import { toHex } from '@waybill/merkle'
import { eventLeafHash, type AuditLog, type HeadStore } from '@waybill/projector'
import { readAccess } from '../../auth/scope.js'
import { operation } from '../../openapi/operation.js'
import { json, problems } from '../../openapi/responses.js'
import { readOrderStream } from '../orders/auditor.js'
import { eventPage } from '../orders/event-page.js'
import { OrderParams, ProofQuery } from '../orders/schemas.js'
import { ProofSchema } from './schemas.js'

/** Proofs built between two turns given back to the event loop. */
const PROOF_SLICE = 25

/** GET /v1/orders/:order_id/proof: each event's leaf and its inclusion proof against the latest signed head. */
export function getProof(fastify: FastifyInstance, tree: AuditLog, store: EventStore, heads: HeadStore): void {
  fastify.withTypeProvider<TypeBoxTypeProvider>().get('/v1/orders/:order_id/proof', {
    preValidation: readAccess,
    schema: operation({
      id: 'getOrderProof', tags: ['orders', 'audit'], keyed: true,
      summary: 'Each event of one order: its leaf in the audit log and its inclusion proof against the latest signed head',
    }, { params: OrderParams, querystring: ProofQuery, response: { 200: json(ProofSchema, 'The order\'s leaves and inclusion proofs', { rateLimited: true }), ...problems(['bad_request', 'not_found'], { keyed: true }) } }),
  }, async (request) => {
    const { stream, events } = await readOrderStream(request, request.params.order_id, store)
    const size = tree.size()
    const head = heads.latest()
    const page = eventPage(events, request.query.after, request.query.limit ?? LIMITS.historyPageDefault)
    const leaves = new Map(tree.leavesOf(stream, page.events[0]?.revision ?? 0, page.events.at(-1)?.revision ?? -1).map((leaf) => [leaf.revision, leaf]))
    const entries = []
    for (const [i, event] of page.events.entries()) {
      // A proof is a few dozen look-ups: the event loop is given back every few dozen proofs.
      if (i > 0 && i % PROOF_SLICE === 0) await setImmediate()
      const leaf = leaves.get(event.revision)
      const covered = leaf !== undefined && head !== null && leaf.leafIndex < head.tree_size && head.tree_size <= size
      entries.push({
        event_id: event.id,
        revision: event.revision,
        leaf_index: leaf?.leafIndex ?? null,
        leaf_hash: toHex(leaf?.hash ?? eventLeafHash(event)),
        audit_path: covered ? tree.inclusion(leaf.leafIndex, head.tree_size).map(toHex) : null,
      })
    }
    return { head, next_cursor: page.nextCursor, entries }
  })
}
