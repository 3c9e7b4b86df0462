import type { KeyObject } from 'node:crypto'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { streamNameFor, WaybillError } from '@waybill/domain'
import { problemResponses } from '@waybill/domain/wire'
import type { EventStore } from '@waybill/event-store'
import { requireReadAccess, type Principal, type ReadAccess } from '@waybill/keys'
import { toHex } from '@waybill/merkle'
import type { AuditLog } from '../audit/audit-log.js'
import { eventLeafHash } from '../audit/leaf.js'
import type { HeadStore } from '../audit/head-store.js'
import { publicKeyDocument } from '../audit/signing-key.js'
import { logAuditorRead } from './audit.js'
import {
  ConsistencyQuery, ConsistencySchema, HeadListQuery, HeadListSchema, ProofSchema, PublicKeySchema, TreeHeadSchema,
} from './audit-schemas.js'
import { OrderParams } from './schemas.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Route answers without a key (the ingress' auth plugin reads it). */
    public?: boolean
  }
}

/** What the audit routes read: the kept heads, the key that verifies them, and the audit log. */
export interface AuditApiOptions {
  readonly heads: HeadStore
  readonly publicKey: KeyObject
  readonly log: AuditLog
}

interface Dependencies extends AuditApiOptions {
  readonly store: EventStore
  readonly principalOf: (request: FastifyRequest) => Principal | null
  readonly readerOf: (request: FastifyRequest) => { access: ReadAccess; account: string }
}

const keyed = { tags: ['audit'], security: [{ apiKey: [] }] }

/**
 * The audit routes (docs/audit.md#http): the public key (no key needed), the signed heads, a
 * consistency proof between two sizes, and an order's inclusion proofs. Any key that can read
 * (orders:read, or an auditor's orders:audit) reads heads: they say nothing of any account.
 */
export function auditRoutes(fastify: FastifyInstance, deps: Dependencies): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const { heads, log: tree, store } = deps
  const rejectInvalid = (request: FastifyRequest): void => {
    if (request.validationError !== undefined) throw new WaybillError('bad_request', request.validationError.message)
  }
  const anyReader = (request: FastifyRequest): void => {
    requireReadAccess(deps.principalOf(request))
    rejectInvalid(request)
  }

  app.get('/v1/audit/public-key', {
    config: { public: true },
    schema: { summary: 'The Ed25519 public key that verifies the signed tree heads', operationId: 'getAuditPublicKey',
      tags: ['audit'], security: [], response: { 200: PublicKeySchema, ...problemResponses([], { keyed: false }) } },
  }, async () => publicKeyDocument(deps.publicKey))

  app.get('/v1/audit/heads', {
    attachValidation: true,
    schema: { summary: 'Signed tree heads, ascending, a page at a time', operationId: 'getAuditHeads', ...keyed,
      querystring: HeadListQuery, response: { 200: HeadListSchema, ...problemResponses(['bad_request'], { keyed: true }) } },
  }, async (request) => {
    anyReader(request)
    const limit = request.query.limit ?? 100
    const page = heads.list(request.query.after ?? null, limit + 1)
    const shown = page.slice(0, limit)
    return { heads: shown, next_cursor: page.length > limit ? String(shown.at(-1)?.tree_size) : null }
  })

  app.get('/v1/audit/heads/latest', {
    schema: { summary: 'The latest signed tree head', operationId: 'getLatestAuditHead', ...keyed,
      response: { 200: TreeHeadSchema, ...problemResponses(['not_found'], { keyed: true }) } },
  }, async (request) => {
    anyReader(request)
    const latest = heads.latest()
    if (latest === null) throw new WaybillError('not_found', 'No tree head has been signed yet')
    return latest
  })

  app.get('/v1/audit/consistency', {
    attachValidation: true,
    schema: { summary: 'RFC 9162 consistency proof between two tree sizes', operationId: 'getAuditConsistency', ...keyed,
      querystring: ConsistencyQuery, response: { 200: ConsistencySchema, ...problemResponses(['bad_request'], { keyed: true }) } },
  }, async (request) => {
    anyReader(request)
    const { first, second } = request.query
    const latest = heads.latest()?.tree_size ?? 0
    if (first > second) throw new WaybillError('bad_request', 'first: must be at most second')
    if (second > latest) throw new WaybillError('bad_request', `second: at most the latest signed head's tree_size (${latest})`)
    if (tree.size() < second) throw new WaybillError('server_error', 'The audit log is being rebuilt; retry', { status: 503, headers: { 'retry-after': '1' } })
    return { first, second, proof: tree.consistency(first, second).map(toHex) }
  })

  app.get('/v1/orders/:order_id/proof', {
    attachValidation: true,
    schema: { summary: 'Each event of one order: its leaf in the audit log and its inclusion proof against the latest signed head',
      operationId: 'getOrderProof', tags: ['orders', 'audit'], security: [{ apiKey: [] }],
      params: OrderParams, response: { 200: ProofSchema, ...problemResponses(['bad_request', 'not_found'], { keyed: true }) } },
  }, async (request) => {
    const { access, account } = deps.readerOf(request)
    const orderId = request.params.order_id
    const stream = streamNameFor(account, orderId)
    const events = await store.readStream(stream)
    if (events.length === 0) throw new WaybillError('not_found', `No order ${orderId}`)
    if (access.auditor) logAuditorRead(request, access.keyId, { account, order_id: orderId })
    const size = tree.size()
    const head = heads.latest()
    const leaves = new Map(tree.leavesOf(stream).map((leaf) => [leaf.revision, leaf]))
    return {
      head,
      entries: events.map((event) => {
        const leaf = leaves.get(event.revision)
        const covered = leaf !== undefined && head !== null && leaf.leafIndex < head.tree_size && head.tree_size <= size
        return {
          event_id: event.id,
          revision: event.revision,
          leaf_index: leaf?.leafIndex ?? null,
          leaf_hash: toHex(leaf?.hash ?? eventLeafHash(event)),
          audit_path: covered ? tree.inclusion(leaf.leafIndex, head.tree_size).map(toHex) : null,
        }
      }),
    }
  })
}
