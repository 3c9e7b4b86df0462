import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { Counter, Histogram, type Registry } from 'prom-client'
import type { BlobStore, EventStore, StreamStore } from '@waybill/event-store'
import type { SignedTreeHead } from '@waybill/merkle'
import type { ProjectorStatus } from '@waybill/projector'
import type { WebhookEndpointStatus } from '@waybill/webhooks'
import { READINESS_CHECKS, type Readiness } from '../readiness/readiness.js'
import { timedAppends } from '../store/timed-appends.js'
import { registerDataMetrics } from './data-metrics.js'
import { registerGroupCommit } from './group-commit.js'
import { registerOperationMetrics } from './operation-metrics.js'
import { processRegistry } from './process-registry.js'
import { registerProjectorMetrics } from './projector-metrics.js'
import { registerScraped } from './scraped.js'
import { registerWebhookMetrics } from './webhook-metrics.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's Prometheus registry and instruments (one registry per app, so tests can run several). */
    metrics: WaybillMetrics
  }
}

/** What /metrics reports. Built once per app; `instrument` wraps the store the routes use. */
export interface WaybillMetrics {
  readonly registry: Registry
  /** The store with its appends timed into `waybill_append_duration_seconds`. */
  instrument(store: StreamStore): StreamStore
  /** The Prometheus text exposition of every metric. */
  render(): Promise<string>
  readonly contentType: string
  readonly eventsAccepted: Counter<'type'>
  readonly errors: Counter<'code' | 'status'>
  /** `waybill_http_request_duration_seconds`, observed by the plugin's hook. */
  readonly requests: Histogram<'method' | 'route' | 'status'>
  /** Counts one problem answered, by its code and status. */
  countProblem(code: string, status: number): void
}

/** The projector running in this process (`waybill serve`'s thread), as /metrics and readiness see it. */
export interface ProjectorView {
  /** Its last report; null before the first. */
  status(): ProjectorStatus | null
  /** The webhook endpoints its thread delivers to, as last reported (docs/operations.md#metrics). */
  webhooks?(): readonly WebhookEndpointStatus[]
}

export interface MetricsOptions {
  /** The store whose group-commit figures are reported, when it keeps them (the SQLite store does). */
  readonly store: EventStore
  /** The data directory: its free space, what its parts weigh, the operators' runs. */
  readonly dataDir: string
  readonly blobs?: Pick<BlobStore, 'usage'>
  /** The kept heads: the latest one's size and age. */
  readonly heads?: { latest(): SignedTreeHead | null }
  /** The projector of this process, when one runs (`waybill serve`'s thread). */
  readonly projector?: ProjectorView
  readonly readiness: Readiness
}

/** Upper bounds of the request-duration histogram, in seconds. */
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

export function createMetrics(options: MetricsOptions): WaybillMetrics {
  const registry = processRegistry()

  const accepted = new Counter({
    name: 'waybill_events_accepted_total',
    help: 'Delivery events answered 201/202 (exact retries included), by event type',
    labelNames: ['type'] as const,
    registers: [registry],
  })
  const errors = new Counter({
    name: 'waybill_errors_total',
    help: 'Error answers, by error code (readiness answers are not counted: see waybill_ready)',
    labelNames: ['code', 'status'] as const,
    registers: [registry],
  })
  const appendSeconds = new Histogram({
    name: 'waybill_append_duration_seconds',
    help: 'Time for one append to the event store to be durable (or to fail)',
    buckets: [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  })
  const requests = new Histogram({
    name: 'waybill_http_request_duration_seconds',
    help: 'Time from a request\'s arrival to its answer sent, by method, route (the pattern, e.g. /v1/orders/:order_id; "unmatched" for none) and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: REQUEST_BUCKETS,
    registers: [registry],
  })
  const stats = options.store.stats?.bind(options.store)
  if (stats !== undefined) registerGroupCommit(registry, stats)
  registerProjectorMetrics(registry, {
    ...(options.projector !== undefined ? { status: () => options.projector?.status() ?? null } : {}),
    ...(options.heads !== undefined ? { heads: options.heads } : {}),
  })
  const webhooks = options.projector?.webhooks?.bind(options.projector)
  if (webhooks !== undefined) registerWebhookMetrics(registry, webhooks)
  registerDataMetrics(registry, { dataDir: options.dataDir, ...(options.blobs !== undefined ? { blobs: options.blobs } : {}) })
  registerOperationMetrics(registry, options.dataDir)
  registerReadinessMetrics(registry, options.readiness)

  return {
    registry,
    contentType: registry.contentType,
    render: () => registry.metrics(),
    instrument: (inner) => timedAppends(inner, appendSeconds),
    eventsAccepted: accepted,
    errors,
    requests,
    countProblem: (code, status) => errors.inc({ code, status: String(status) }),
  }
}

function registerReadinessMetrics(registry: Registry, readiness: Readiness): void {
  registerScraped(registry, {
    name: 'waybill_ready', help: '1 while /readyz answers 200; 0 while it answers 503 (waybill_readiness_failing says why)', type: 'gauge',
    read: async () => [{ value: (await readiness.failing()).length === 0 ? 1 : 0 }],
  })
  registerScraped(registry, {
    name: 'waybill_readiness_failing', help: '1 for each readiness check that fails now: disk, store, read_model, audit_log, projector', type: 'gauge',
    read: async () => {
      const failing = new Set((await readiness.failing()).map((f) => f.check))
      return READINESS_CHECKS.map((check) => ({ labels: { check }, value: failing.has(check) ? 1 : 0 }))
    },
  })
}

interface MetricsPluginOptions {
  readonly metrics: WaybillMetrics
}

/**
 * Times every request by method, route pattern and status, and counts accepted events by type
 * (from the parsed body of a 201/202 on /v1/deliveries). Errors are counted where their problem
 * body is built, by the code itself. /metrics itself is never on the API's listener: it shows
 * totals across every account, so it has a listener of its own (metrics-listener.ts, loopback
 * by default).
 */
async function metricsPlugin(app: FastifyInstance, options: MetricsPluginOptions): Promise<void> {
  const metrics = options.metrics
  app.decorate('metrics', options.metrics)
  // A callback-style hook: no promise per request on the hot path.
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url
    // The pattern, never the path: one series per route, whatever ids the paths carry.
    metrics.requests.observe({ method: request.method, route: route ?? 'unmatched', status: String(reply.statusCode) }, reply.elapsedTime / 1000)
    if ((reply.statusCode === 201 || reply.statusCode === 202) && route === '/v1/deliveries') {
      const event = (request.body as { event?: unknown } | undefined)?.event
      if (typeof event === 'string') metrics.eventsAccepted.inc({ type: event })
    }
    done()
  })
}

export default fp(metricsPlugin, { name: 'waybill-metrics' })
