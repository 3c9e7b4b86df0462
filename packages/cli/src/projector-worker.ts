import { parentPort, workerData } from 'node:worker_threads'
import { startProjector, storeEventSource, type ProjectorLogger } from '@waybill/projector'
import { startWebhookDeliverer } from '@waybill/webhooks'
import { openSigning } from './audit-setup.js'
import type { WaybillConfig } from './config.js'
import { openStore } from './open-store.js'
import type { FromProjectorThread, ToProjectorThread } from './projector-thread.js'
import { deliverySettings } from './webhook-settings.js'

/** How often the thread reports its status (and lag) to the main thread. */
const STATUS_EVERY_MS = 500

// The projector thread of `waybill serve` (projector-thread.ts).
const port = parentPort
if (port === null) throw new Error('projector-worker.ts runs as a worker thread')
const { config } = workerData as { config: WaybillConfig }
const send = (message: FromProjectorThread): void => port.postMessage(message)

const logger: ProjectorLogger = {
  info: (object, message) => send({ type: 'log', level: 'info', object: plain(object), ...(message === undefined ? {} : { message }) }),
  warn: (object, message) => send({ type: 'log', level: 'warn', object: plain(object), ...(message === undefined ? {} : { message }) }),
  error: (object, message) => send({ type: 'log', level: 'error', object: plain(object), ...(message === undefined ? {} : { message }) }),
}

// Only a read connection's worth of the store is used: the projector never appends, so the
// inline writer (no thread of its own) is enough.
const opened = await openStore(config, { writer: 'inline' })
// Its process checked the key at start; a key that no longer fits (rotated elsewhere) stops the
// signing only, said in the status, while the orders projection runs on.
const audit = openSigning(config, { refuse: false })
// This thread's store sees none of the appends: the main thread passes on its notices, already
// coalesced, to each projection's source, which wakes at once on each.
const notices = new Set<() => void>()
const onAppended = (listener: () => void): () => void => {
  notices.add(listener)
  return () => { notices.delete(listener) }
}
const projector = startProjector({
  source: (read) => storeEventSource(opened.store, { ...read, coalesceMs: 0, onAppended }),
  dataDir: config.dataDir, keys: opened.keys, logger, audit: audit.options,
})
// The webhooks are delivered where the projector runs, so that exactly one process delivers.
const webhooks = startWebhookDeliverer({ store: opened.store, keys: opened.keys, dataDir: config.dataDir, logger, onAppended, settings: deliverySettings(config) })
const status = (): FromProjectorThread => ({ type: 'status', status: projector.status(), webhooks: webhooks.status() })
const report = setInterval(() => send(status()), STATUS_EVERY_MS)

port.on('message', (message: ToProjectorThread) => {
  if (message.type === 'appended') {
    for (const notice of notices) notice()
    return
  }
  clearInterval(report)
  void Promise.all([projector.stop(), webhooks.stop()]).finally(async () => {
    audit.close()
    await opened.close()
    send(status())
    port.close()
  })
})

/** A log object the structured clone keeps whole: an error becomes its name, message and stack. */
function plain(object: object): object {
  const err = (object as { err?: unknown }).err
  if (!(err instanceof Error)) return object
  return { ...object, err: { type: err.name, message: err.message, stack: err.stack } }
}
