import type { BlobStore, EventStore, Position } from '@waybill/event-store'
import type { SubjectKeyStore } from '@waybill/personal-data'
import type { ReadModel } from '../orders/reader.js'
import { erasePersonalData } from './erase.js'

export interface RetentionOptions {
  readonly store: EventStore
  readonly keys: SubjectKeyStore
  readonly blobs: Pick<BlobStore, 'remove'>
  readonly readModel: Pick<ReadModel, 'closedBefore'>
  /** How long after an order is completed or canceled its personal data is kept (WAYBILL_ERASE_AFTER). */
  readonly keepMs: number
  /** The text the erasures give as their reason, e.g. `retention 90d`. */
  readonly policy: string
  /** The clock: injected by tests. Default the system's. */
  readonly now?: () => Date
  /** Orders erased per call at most. Default 500. */
  readonly batch?: number
}

export interface RetentionRun {
  readonly erased: ReadonlyArray<{ readonly account: string; readonly orderId: string }>
  /** The last erasure appended: the read model is scrubbed once it passes it. */
  readonly position: Position | null
}

/**
 * Erases the personal data of the orders completed or canceled longer ago than the policy keeps
 * it (docs/personal-data.md#retention), each as `waybill erase --order` would, with the scope
 * `retention`. The candidates come from the read model, so an order is found once the projector
 * has seen its closing event; one erased meanwhile by an operator is passed over by the decider.
 */
export async function eraseExpired(options: RetentionOptions): Promise<RetentionRun> {
  const now = options.now ?? (() => new Date())
  const cutoff = new Date(now().getTime() - options.keepMs).toISOString()
  const erased: Array<{ account: string; orderId: string }> = []
  let position: Position | null = null
  for (const { account, orderId } of options.readModel.closedBefore(cutoff, options.batch ?? 500)) {
    const report = await erasePersonalData(
      { store: options.store, keys: options.keys, blobs: options.blobs, now, scope: 'retention' },
      { account, target: { order: orderId }, requestedBy: 'waybill retention', reason: options.policy },
    )
    if (report.orders.some((order) => order.outcome === 'erased')) erased.push({ account, orderId })
    position = report.position ?? position
  }
  return { erased, position }
}

export interface RetentionLoop {
  stop(): Promise<void>
}

/**
 * Runs `eraseExpired` every `everyMs` (and once at start), one run at a time, until stopped;
 * a failed run is reported and the next one tries again.
 */
export function startRetention(options: RetentionOptions & {
  readonly everyMs: number
  readonly onRun?: (run: RetentionRun) => void
  readonly onError?: (error: unknown) => void
}): RetentionLoop {
  let stopped = false
  let running: Promise<void> = Promise.resolve()
  let timer: NodeJS.Timeout | null = null
  const tick = (): void => {
    running = eraseExpired(options).then((run) => options.onRun?.(run), (error: unknown) => options.onError?.(error)).finally(() => {
      if (!stopped) timer = setTimeout(tick, options.everyMs)
    })
  }
  tick()
  return {
    async stop() {
      stopped = true
      if (timer !== null) clearTimeout(timer)
      await running
    },
  }
}
