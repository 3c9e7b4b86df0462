import type { ServerDeps } from '@waybill/http'
import type { ReadModel } from '@waybill/projector'
import { READ_API_SCHEMAS, readApi, type AuditApiOptions, type BlobReader } from '@waybill/projector/read-api'
import type { EventStore } from '@waybill/event-store'

/**
 * The projector's read API (and its audit routes) as the ingress mounts it, behind its key check.
 * One home for `waybill serve` and `waybill openapi`, so the document printed is the one the
 * server serves.
 */
export function readApiPlugins(
  readModel: ReadModel, store: EventStore, blobs: BlobReader, audit: AuditApiOptions,
): Required<Pick<ServerDeps, 'plugins' | 'openApiSchemas'>> {
  return {
    plugins: [async (app) => {
      await app.register(readApi, { readModel, store, blobs, principalOf: (request) => request.principal, audit })
    }],
    openApiSchemas: READ_API_SCHEMAS,
  }
}
