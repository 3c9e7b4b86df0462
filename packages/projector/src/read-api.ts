/** The HTTP read API (GET /v1/orders…, the audit routes) and its schemas: `@waybill/projector/read-api`. */
export { readApi, type ReadApiOptions, type BlobReader } from './read-api/routes.js'
export type { AuditApiOptions } from './read-api/audit-routes.js'
export { READ_API_SCHEMAS } from './read-api/schemas.js'
