import type { Registry } from 'prom-client'
import type { SignedTreeHead } from '@waybill/merkle'
import { isUp, LAG_COUNT_LIMIT, type ProjectorStatus } from '@waybill/projector'
import { registerScraped, type Sample } from './scraped.js'

export interface ProjectorMetricsOptions {
  /** The projector of this process (serve's thread, or `waybill projector` itself); absent when none runs here. */
  readonly status?: () => ProjectorStatus | null
  /** The kept heads (`HeadStore`): the latest one's size and age. */
  readonly heads?: { latest(): SignedTreeHead | null }
  readonly now?: () => number
}

/**
 * The projections' metrics, the same in `waybill serve` (its projector thread) and `waybill
 * projector`: the orders read model keeps the unlabelled names it always had, the audit log has
 * names of its own. Head size and age come from the heads file, so they are reported wherever it
 * is read, with or without a projector in the process.
 */
export function registerProjectorMetrics(registry: Registry, options: ProjectorMetricsOptions): void {
  const { status, heads } = options
  const now = options.now ?? Date.now
  const one = (value: number | null | undefined): Sample[] => (value == null ? [] : [{ value }])
  if (status !== undefined) {
    const orders = () => status()?.orders
    const audit = () => status()?.audit ?? null
    const gauge = (name: string, help: string, read: () => number | null | undefined) =>
      registerScraped(registry, { name, help, type: 'gauge', read: () => one(read()) })
    gauge('waybill_projector_lag_events', `Events in the log after the orders read model's checkpoint, as last counted (up to ${LAG_COUNT_LIMIT})`,
      () => orders()?.lag ?? 0)
    gauge('waybill_projector_up', '1 while the orders projection\'s last batch committed; 0 while it retries, has not started, or its thread restarts',
      () => { const s = orders(); return s !== undefined && isUp(s) ? 1 : 0 })
    registerScraped(registry, {
      name: 'waybill_projector_applied_events_total', help: 'Order events applied to the read model since the projector (or its thread) started',
      type: 'counter', read: () => one(orders()?.appliedEvents ?? 0),
    })
    gauge('waybill_audit_lag_events', `Events in the log after the audit log's checkpoint, as last counted (up to ${LAG_COUNT_LIMIT})`,
      () => audit()?.lag)
    gauge('waybill_audit_up', '1 while the audit log projection\'s last batch committed; 0 while it retries or has not started',
      () => { const s = audit(); return s === null ? null : isUp(s) ? 1 : 0 })
    gauge('waybill_audit_leaves', 'Leaves in the audit log (order events, in log order)', () => audit()?.treeSize)
    gauge('waybill_audit_signing_blocked', '1 while no head is signed because the audit log disagrees with a kept head (inconsistent, or behind it): see the log and run waybill audit verify',
      () => { const s = audit(); return s === null ? null : s.problem === null ? 0 : 1 })
  }
  if (heads !== undefined) {
    registerScraped(registry, {
      name: 'waybill_audit_head_tree_size', help: 'Tree size of the latest signed tree head kept', type: 'gauge',
      read: () => one(heads.latest()?.tree_size),
    })
    registerScraped(registry, {
      name: 'waybill_audit_head_age_seconds', help: 'Seconds since the latest signed tree head kept was signed', type: 'gauge',
      read: () => {
        const latest = heads.latest()
        return latest === null ? [] : [{ value: Math.max(0, (now() - Date.parse(latest.timestamp)) / 1000) }]
      },
    })
  }
}
