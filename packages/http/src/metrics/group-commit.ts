import type { Registry } from 'prom-client'
import type { WriteStats } from '@waybill/event-store'
import { registerScraped } from './scraped.js'

/** Upper bounds of the batch-size histogram (appends per transaction, i.e. per fsync). */
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]

/**
 * `waybill_group_commit_batch_size`: appends per SQLite transaction (one fsync each), since the
 * store opened, a histogram whose `_count` is the transactions and `_sum` the appends. The store
 * keeps exact counts per size; they are re-expressed as cumulative buckets at scrape time rather
 * than observed a second time on the write path.
 */
export function registerGroupCommit(registry: Registry, stats: () => WriteStats): void {
  registerScraped(registry, {
    name: 'waybill_group_commit_batch_size',
    help: 'Appends per SQLite transaction (one fsync each) since the store opened: _count transactions, _sum appends',
    type: 'histogram',
    read() {
      const { batchSizeCounts, batches, appends } = stats()
      return [
        ...BATCH_BUCKETS.map((bound) => ({
          suffix: '_bucket' as const,
          labels: { le: String(bound) },
          value: batchSizeCounts.reduce((sum, [size, n]) => (size <= bound ? sum + n : sum), 0),
        })),
        { suffix: '_bucket', labels: { le: '+Inf' }, value: batches },
        { suffix: '_sum', value: appends },
        { suffix: '_count', value: batches },
      ]
    },
  })
}
