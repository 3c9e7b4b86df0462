/*
 * `@waybill/http/operation-status`: the status file a long operator command leaves in the data
 * directory and `/metrics` reads. Its own entry, loading nothing but node:fs, so that the commands
 * that write it (`waybill rebuild`, `waybill backup`) load no Fastify, pino or prom-client.
 */
export { recordOperation, recordedOperation, type OperationRecorder } from './recorder.js'
export { readOperation, readOperations, OPERATIONS_DIR, type OperationStatus } from './status-file.js'
