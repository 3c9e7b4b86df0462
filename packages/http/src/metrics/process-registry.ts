import { collectDefaultMetrics, Gauge, Registry } from 'prom-client'
import { WAYBILL_VERSION } from '@waybill/domain'

/**
 * A registry of a Waybill process's metrics (`waybill serve`'s and `waybill projector`'s): which
 * Waybill it is, `waybill_build_info` (docs/operations.md#upgrades), and prom-client's process
 * metrics (CPU, memory, event loop, GC) as `waybill_*`.
 */
export function processRegistry(): Registry {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: 'waybill_' })
  // One series, always 1, its labels the version.
  new Gauge({
    name: 'waybill_build_info', help: 'Waybill\'s version and the Node.js it runs on (always 1)',
    labelNames: ['version', 'node'] as const, registers: [registry],
  }).set({ version: WAYBILL_VERSION, node: process.version }, 1)
  return registry
}
