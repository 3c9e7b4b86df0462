import { ATTEMPT_OUTCOMES } from './delivery/send.js'
import type { WebhookEndpointStatus } from './delivery/start-deliverer.js'

/** One metric and its samples, as an exposition (serve's /metrics, the projector's) registers them. */
export interface MetricFamily {
  readonly name: string
  readonly help: string
  readonly type: 'gauge' | 'counter'
  readonly labelNames: readonly string[]
  readonly samples: ReadonlyArray<{ readonly labels: Readonly<Record<string, string>>; readonly value: number }>
}

/**
 * The webhook metrics of the endpoints a deliverer runs (docs/operations.md#metrics): the one home
 * of their names, help and values, for both expositions.
 */
export function webhookMetrics(statuses: readonly WebhookEndpointStatus[], now: number = Date.now()): MetricFamily[] {
  const each = (value: (status: WebhookEndpointStatus) => number) =>
    statuses.map((status) => ({ labels: { endpoint: status.id }, value: value(status) }))
  return [
    {
      name: 'waybill_webhook_backlog_messages', type: 'gauge', labelNames: ['endpoint'],
      help: 'Messages an endpoint has not been delivered yet', samples: each((status) => status.backlog),
    },
    {
      name: 'waybill_webhook_oldest_pending_seconds', type: 'gauge', labelNames: ['endpoint'],
      help: 'Age of the oldest event an endpoint has not been delivered yet (since it was accepted); 0 when none',
      samples: each((status) => status.oldestPendingAt === null ? 0 : Math.max(0, (now - Date.parse(status.oldestPendingAt)) / 1000)),
    },
    {
      name: 'waybill_webhook_queue_lag_events', type: 'gauge', labelNames: ['endpoint'],
      help: "Events in the log after an endpoint's queue checkpoint", samples: each((status) => status.queue.lag),
    },
    {
      name: 'waybill_webhook_enabled', type: 'gauge', labelNames: ['endpoint'],
      help: '1 while an endpoint is enabled, 0 once disabled (410 Gone, its retries spent, or the operator)',
      samples: each((status) => status.enabled ? 1 : 0),
    },
    {
      name: 'waybill_webhook_attempts_total', type: 'counter', labelNames: ['endpoint', 'outcome'],
      help: 'Delivery attempts since the process started, by outcome (delivered, failed, gone, timeout, error)',
      samples: statuses.flatMap((status) => ATTEMPT_OUTCOMES.map((outcome) => ({ labels: { endpoint: status.id, outcome }, value: status.attempts[outcome] }))),
    },
  ]
}
