import type { Registry } from 'prom-client'
import { readOperations, type OperationStatus } from '../operation-status/status-file.js'
import { registerScraped, type Sample } from './scraped.js'

const seconds = (iso: string | null | undefined): number | null => {
  const ms = iso == null ? NaN : Date.parse(iso)
  return Number.isNaN(ms) ? null : ms / 1000
}

/**
 * The operator commands' runs (`waybill rebuild`, `waybill backup`, …), as their status files
 * in the data directory say (operation-status/): whether one runs and how far it is, when the
 * last succeeded, and whether the last one failed. Read at scrape time: a handful of small files.
 */
export function registerOperationMetrics(registry: Registry, dataDir: string): void {
  // The files are read once per scrape, not once per metric: a scrape asks every metric at once,
  // so they share the read in flight.
  let reading: Promise<OperationStatus[]> | null = null
  const statuses = (): Promise<OperationStatus[]> => {
    reading ??= readOperations(dataDir).finally(() => { reading = null })
    return reading
  }
  const each = (name: string, help: string, value: (status: OperationStatus) => number | null) => registerScraped(registry, {
    name, help, type: 'gauge',
    read: async () => (await statuses()).flatMap((status): Sample[] => {
      const v = value(status)
      return v === null ? [] : [{ labels: { operation: status.operation }, value: v }]
    }),
  })
  each('waybill_operation_running', '1 while the operation\'s status file says it runs (a killed run says so until the next one starts)',
    (s) => (s.state === 'running' ? 1 : 0))
  each('waybill_operation_progress_ratio', 'Share of its work the running (or last) run of the operation has done, 0 to 1, when it knows its total',
    (s) => (s.done !== null && s.total !== null && s.total > 0 ? Math.min(1, s.done / s.total) : s.state === 'succeeded' ? 1 : null))
  each('waybill_operation_started_timestamp_seconds', 'When the running (or last) run of the operation started, in Unix seconds',
    (s) => seconds(s.started_at))
  each('waybill_operation_last_success_timestamp_seconds', 'When the last successful run of the operation ended, in Unix seconds',
    (s) => seconds(s.last_success?.finished_at))
  each('waybill_operation_last_failed', '1 when the last run of the operation that ended failed',
    (s) => (s.state === 'running' ? null : s.state === 'failed' ? 1 : 0))
  each('waybill_operation_last_duration_seconds', 'How long the last run of the operation that ended took',
    (s) => {
      const start = seconds(s.started_at)
      const end = seconds(s.finished_at)
      return start === null || end === null ? null : end - start
    })
}
