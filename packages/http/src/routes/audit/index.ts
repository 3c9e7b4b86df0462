import type { FastifyInstance } from 'fastify'
import type { EventStore } from '@waybill/event-store'
import type { AuditLog, HeadStore } from '@waybill/projector'
import { getConsistency } from './consistency.js'
import { getHeads } from './heads.js'
import { getProof } from './proof.js'
import { getPublicKeys } from './public-key.js'
import { getSeals } from './seals.js'

/** What the audit routes read: the heads file (heads and the keys that verify them), the audit log and the event log. */
export interface AuditRoutesOptions {
  readonly heads: HeadStore
  readonly log: AuditLog
  readonly store: EventStore
}

/**
 * The audit routes (docs/audit.md#http): the public keys (no key needed), the signed heads, a
 * consistency proof between two sizes, an order's inclusion proofs, and the seals of the log. Any key that can read
 * (orders:read, or an auditor's orders:audit) reads heads.
 */
export default async function auditRoutes(app: FastifyInstance, options: AuditRoutesOptions): Promise<void> {
  getPublicKeys(app, options.heads)
  getHeads(app, options.heads)
  getSeals(app, options.heads)
  getConsistency(app, options.log, options.heads)
  getProof(app, options.log, options.store, options.heads)
}
