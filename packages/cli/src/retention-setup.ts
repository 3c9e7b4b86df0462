import { startRetention, type ReadModel, type RetentionLoop } from '@waybill/projector'
import type { WaybillConfig } from './config.js'
import type { OpenedStore } from './open-store.js'

/** How often retention looks for orders to erase. */
const RETENTION_EVERY_MS = 10 * 60 * 1000

interface RetentionLog {
  info(object: object, message: string): void
  error(object: object, message: string): void
}

/**
 * Retention (WAYBILL_ERASE_AFTER) in the process that runs the projector (serve, or `waybill
 * projector`), so exactly one process erases: every ten minutes, the orders closed longer ago.
 */
export function startConfiguredRetention(config: Pick<WaybillConfig, 'retention'>, opened: OpenedStore, readModel: ReadModel, log: RetentionLog): RetentionLoop | null {
  if (config.retention === null) return null
  return startRetention({
    store: opened.store, keys: opened.keys, blobs: opened.blobs, readModel, ...config.retention, everyMs: RETENTION_EVERY_MS,
    onRun: (run) => {
      if (run.erased.length > 0) log.info({ erased: run.erased.length, policy: config.retention?.policy }, `retention erased the personal data of ${run.erased.length} order(s)`)
    },
    onError: (error) => log.error({ err: error instanceof Error ? error.message : String(error) }, 'retention failed; it tries again at its next run'),
  })
}
