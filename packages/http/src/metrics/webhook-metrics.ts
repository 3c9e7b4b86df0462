import type { Registry } from 'prom-client'
import { webhookMetrics, type WebhookEndpointStatus } from '@waybill/webhooks'
import { registerScraped } from './scraped.js'

/**
 * The webhook endpoints' metrics (docs/operations.md#metrics), from the deliverer of this process
 * (`waybill serve`'s projector thread, or `waybill projector`): their names, help and values are
 * @waybill/webhooks' (`webhookMetrics`), read at scrape time.
 */
export function registerWebhookMetrics(registry: Registry, endpoints: () => readonly WebhookEndpointStatus[]): void {
  for (const { name, help, type } of webhookMetrics([])) {
    registerScraped(registry, { name, help, type, read: () => webhookMetrics(endpoints()).find((family) => family.name === name)?.samples ?? [] })
  }
}
