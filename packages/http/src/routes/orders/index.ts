import type { FastifyInstance } from 'fastify'
import type { BlobStore, EventStore } from '@waybill/event-store'
import type { SubjectKeyStore } from '@waybill/personal-data'
import type { AuditLog, ReadModel } from '@waybill/projector'
import { getHistory } from './get-history.js'
import { getOrder } from './get-order.js'
import { getImages } from './images.js'
import { listOrders } from './list-orders.js'

export interface OrderRoutesOptions {
  readonly readModel: ReadModel
  /** Where each event's leaf is, for the history. */
  readonly auditLog: AuditLog
  readonly store: EventStore
  readonly blobs: Pick<BlobStore, 'read'>
  /** The keys that open each order's personal fields and images. */
  readonly keys: Pick<SubjectKeyStore, 'get'>
}

/**
 * The read API (docs/contract.md#read-api): every route needs a key with `orders:read` and sees
 * only its own account's orders, or an auditor key (account `*`, `orders:audit`), which reads any
 * account and names the order's in `?account=`; each of its reads is logged with its key id.
 * Current state comes from the read model (which trails the log by a moment); history and images
 * come from the event store itself.
 */
export default async function orderRoutes(app: FastifyInstance, options: OrderRoutesOptions): Promise<void> {
  getOrder(app, options.readModel)
  listOrders(app, options.readModel)
  getHistory(app, options.auditLog, options.store, options.keys)
  getImages(app, options.readModel, options.store, options.blobs, options.keys)
}
