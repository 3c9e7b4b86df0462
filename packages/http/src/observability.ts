/*
 * `@waybill/http/observability`: the log format and the metrics a Waybill process without the
 * HTTP app shares with `waybill serve` (`waybill projector`): pino and prom-client, no Fastify
 * and no TypeBox (packages/cli/test/no-fastify.e2e.test.ts).
 */
export { createLogger, type LoggerOptions } from './logging/logger.js'
export { logDestination, type LogDestination } from './logging/log-destination.js'
export { registerProjectorMetrics, type ProjectorMetricsOptions } from './metrics/projector-metrics.js'
export { registerDataMetrics, type DataMetricsOptions } from './metrics/data-metrics.js'
export { registerOperationMetrics } from './metrics/operation-metrics.js'
export { processRegistry } from './metrics/process-registry.js'
export { registerWebhookMetrics } from './metrics/webhook-metrics.js'
