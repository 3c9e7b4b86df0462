import type { DeliverySettings } from '@waybill/webhooks'
import type { WaybillConfig } from './config.js'

/** The deliverer's settings the configuration sets (docs/operations.md#webhooks); the rest are its defaults. */
export function deliverySettings(config: WaybillConfig): Partial<DeliverySettings> {
  const { retrySchedule, timeoutMs } = config.webhooks
  return { timeoutMs, ...(retrySchedule === null ? {} : { retry: { schedule: retrySchedule } }) }
}
