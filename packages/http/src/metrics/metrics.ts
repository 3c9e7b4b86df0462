import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import { WAYBILL_VERSION } from '@waybill/domain'
import type { EventStore, StreamStore } from '@waybill/event-store'
import type { WebhookEndpointStatus } from '@waybill/webhooks'
import { timedAppends } from '../store/timed-appends.js'
import { registerWebhookMetrics } from './webhook-gauges.js'

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
  /** Counts one problem answered, by its code and status. */
  countProblem(code: string, status: number): void
}

/** What /metrics reports of a projector running in this process. */
export interface ProjectorGauges {
  /** Events behind the head of the log. */
  lag(): number
  up(): boolean
  /** The webhook endpoints it delivers to (docs/operations.md#metrics). */
  webhooks?(): readonly WebhookEndpointStatus[]
}

export interface MetricsOptions {
  /** The store whose group-commit figures are reported, when it keeps them (the SQLite store does). */
  readonly store: EventStore
  /** The projector of this process, when one runs (`waybill serve`'s thread). */
  readonly projector?: ProjectorGauges
}

/** Upper bounds of the batch-size histogram (appends per transaction, i.e. per fsync). */
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]

export function createMetrics(options: MetricsOptions): WaybillMetrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: 'waybill_' })
  // Which Waybill answers: one series, always 1, its labels the version (docs/operations.md#upgrades).
  new Gauge({
    name: 'waybill_build_info', help: 'Waybill\'s version and the Node.js it runs on (always 1)',
    labelNames: ['version', 'node'] as const, registers: [registry],
  }).set({ version: WAYBILL_VERSION, node: process.version }, 1)

  const accepted = new Counter({
    name: 'waybill_events_accepted_total',
    help: 'Delivery events answered 201/202 (exact retries included), by event type',
    labelNames: ['type'] as const,
    registers: [registry],
  })
  const errors = new Counter({
    name: 'waybill_errors_total',
    help: 'Error answers, by error code',
    labelNames: ['code', 'status'] as const,
    registers: [registry],
  })
  const appendSeconds = new Histogram({
    name: 'waybill_append_duration_seconds',
    help: 'Time for one append to the event store to be durable (or to fail)',
    buckets: [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  })
  const stats = options.store.stats?.bind(options.store)
  if (stats !== undefined) {
    // The store keeps exact counts per batch size; they are re-expressed as a cumulative
    // histogram at scrape time rather than observed twice on the hot path.
    new Gauge({
      name: 'waybill_group_commit_batch_size_bucket',
      help: 'Transactions (one fsync each) with at most `le` appends, since the store opened',
      labelNames: ['le'] as const,
      registers: [registry],
      collect() {
        const { batchSizeCounts, batches } = stats()
        for (const bound of BATCH_BUCKETS) {
          let count = 0
          for (const [size, n] of batchSizeCounts) if (size <= bound) count += n
          this.set({ le: String(bound) }, count)
        }
        this.set({ le: '+Inf' }, batches)
      },
    })
    new Gauge({
      name: 'waybill_group_commit_batches',
      help: 'Transactions committed or attempted by the SQLite writer since the store opened',
      registers: [registry],
      collect() { this.set(stats().batches) },
    })
    new Gauge({
      name: 'waybill_group_commit_appends',
      help: 'Appends settled by the SQLite writer since the store opened',
      registers: [registry],
      collect() { this.set(stats().appends) },
    })
  }
  const projector = options.projector
  if (projector !== undefined) {
    new Gauge({
      name: 'waybill_projector_lag_events',
      help: 'Events between the head of the log and the read model checkpoint, as the projector last counted',
      registers: [registry],
      collect() { this.set(projector.lag()) },
    })
    new Gauge({
      name: 'waybill_projector_up',
      help: '1 while the projector runs and reads the store without failing, 0 while it retries or its thread is restarting',
      registers: [registry],
      collect() { this.set(projector.up() ? 1 : 0) },
    })
    if (projector.webhooks !== undefined) registerWebhookMetrics(registry, projector.webhooks.bind(projector))
  }

  return {
    registry,
    contentType: registry.contentType,
    render: () => registry.metrics(),
    instrument: (inner) => timedAppends(inner, appendSeconds),
    eventsAccepted: accepted,
    errors,
    countProblem: (code, status) => errors.inc({ code, status: String(status) }),
  }
}

interface MetricsPluginOptions {
  readonly metrics: WaybillMetrics
}

/**
 * Counts accepted events by type (from the parsed body of a 201/202 on /v1/deliveries). Errors are
 * counted where their problem body is built, by the code itself. /metrics itself is never on the
 * API's listener: it shows totals across every account, so it has a listener of its own
 * (metrics-listener.ts, loopback by default).
 */
async function metricsPlugin(app: FastifyInstance, options: MetricsPluginOptions): Promise<void> {
  const metrics = options.metrics
  app.decorate('metrics', options.metrics)
  // A callback-style hook: no promise per request on the hot path.
  app.addHook('onResponse', (request, reply, done) => {
    if ((reply.statusCode === 201 || reply.statusCode === 202) && request.routeOptions.url === '/v1/deliveries') {
      const event = (request.body as { event?: unknown } | undefined)?.event
      if (typeof event === 'string') metrics.eventsAccepted.inc({ type: event })
    }
    done()
  })
}

export default fp(metricsPlugin, { name: 'waybill-metrics' })
