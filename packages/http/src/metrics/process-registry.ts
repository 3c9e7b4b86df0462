import { collectDefaultMetrics, Registry } from 'prom-client'

/** A registry of a Waybill process's metrics, holding prom-client's process metrics (CPU, memory, event loop, GC) as `waybill_*`. */
export function processRegistry(): Registry {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: 'waybill_' })
  return registry
}
