import { Counter, Gauge, type Registry } from 'prom-client'
import { webhookMetrics, type WebhookEndpointStatus } from '@waybill/webhooks'

/**
 * The webhook endpoints' metrics on /metrics (docs/operations.md#metrics), from the deliverer in
 * this process's projector thread: their names, help and values are @waybill/webhooks'
 * (`webhookMetrics`, which `waybill projector`'s own listener writes too), read at scrape time.
 */
export function registerWebhookMetrics(registry: Registry, endpoints: () => readonly WebhookEndpointStatus[]): void {
  for (const family of webhookMetrics([])) {
    const read = (): ReturnType<typeof webhookMetrics>[number] | undefined => webhookMetrics(endpoints()).find((f) => f.name === family.name)
    if (family.type === 'counter') {
      // Counted by the deliverer; a scrape copies its totals (a counter cannot be set).
      new Counter({
        name: family.name, help: family.help, labelNames: family.labelNames, registers: [registry],
        collect() {
          this.reset()
          for (const sample of read()?.samples ?? []) this.inc(sample.labels, sample.value)
        },
      })
    } else {
      new Gauge({
        name: family.name, help: family.help, labelNames: family.labelNames, registers: [registry],
        collect() {
          this.reset()
          for (const sample of read()?.samples ?? []) this.set(sample.labels, sample.value)
        },
      })
    }
  }
}
