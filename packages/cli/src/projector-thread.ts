import { Worker } from 'node:worker_threads'
import { backoffDelay, siblingWorkerUrl, sleep, type BackoffPolicy, type EventStore } from '@waybill/event-store'
import { isUp, WAKE_COALESCE_MS, type ProjectionStatus, type ProjectorLogger, type ProjectorStatus } from '@waybill/projector'
import type { WebhookEndpointStatus } from '@waybill/webhooks'
import type { WaybillConfig } from './config.js'

const WORKER_URL = siblingWorkerUrl('projector-worker', import.meta.url)

/**
 * Waits before a projector thread that died is started again: slower than the projections'
 * own retries (100 ms to 5 s), since only a bug or lack of memory ends the thread.
 */
const RESTART: BackoffPolicy = { initialMs: 500, maxMs: 30_000 }
/** How long `stop` waits for the thread to finish its batch and close before ending it. */
const STOP_TIMEOUT_MS = 5_000

/** What the projector thread tells the main thread. */
export type FromProjectorThread =
  | { readonly type: 'log'; readonly level: 'info' | 'warn' | 'error'; readonly object: object; readonly message?: string }
  | { readonly type: 'status'; readonly status: ProjectorStatus; readonly webhooks: readonly WebhookEndpointStatus[] }

/** What the main thread tells the projector thread. */
export type ToProjectorThread = { readonly type: 'appended' } | { readonly type: 'stop' }

export interface ProjectorThread {
  /** Events the orders read model is behind the head, as the thread last reported (a gauge). */
  lag(): number
  /** Whether the thread runs and its orders projection last read the store without failing. */
  up(): boolean
  /**
   * The thread's last report, null before its first. While no thread runs (it ended and waits to
   * be started again), every projection is reported retrying: nothing is projected then.
   */
  status(): ProjectorStatus | null
  /** The webhook endpoints the thread delivers to, as it last reported them. */
  webhooks(): readonly WebhookEndpointStatus[]
  /** Stops the projector after its batch in flight (signing the last tree head), then the thread. */
  stop(): Promise<void>
}

/**
 * The projector of `waybill serve` (the orders read model and the audit log), on a worker thread
 * of its own: its reads of the log, its read-model transactions and its audit hashing never take
 * the turn of a request on the main thread. The thread opens the store and the signing key itself (as `waybill projector` does)
 * from the same configuration. The main thread passes on the store's append notifications,
 * coalesced, so the read model follows the log as closely as before. Should the thread die (it
 * retries failures itself, so only a bug or running out of memory ends it), it is started again
 * with backoff.
 */
export function startProjectorThread(config: WaybillConfig, store: EventStore, log: ProjectorLogger): ProjectorThread {
  let worker: Worker | null = null
  let last: ProjectorStatus | null = null
  let webhooks: readonly WebhookEndpointStatus[] = []
  let stopping: Promise<void> | null = null
  // Deaths in a row: back to 0 once a started thread reports its orders projection up.
  let deaths = 0
  const stopped = new AbortController()
  let wakeTimer: NodeJS.Timeout | null = null

  const start = (): void => {
    const started = new Worker(WORKER_URL, { workerData: { config } })
    worker = started
    started.on('message', (message: FromProjectorThread) => {
      if (message.type === 'log') log[message.level](message.object, message.message)
      else {
        last = message.status
        webhooks = message.webhooks
        if (isUp(message.status.orders)) deaths = 0
      }
    })
    started.on('error', (error) => log.error({ err: error }, 'projector: its thread failed'))
    started.on('exit', (code) => {
      if (worker === started) worker = null
      if (stopping !== null) return
      const delayMs = backoffDelay(deaths, RESTART)
      deaths += 1
      log.error({ exitCode: code, restartInMs: delayMs }, 'projector: its thread ended; starting it again')
      void sleep(delayMs, stopped.signal).then(() => {
        if (stopping === null) start()
      })
    })
  }

  const unsubscribe = store.onAppended?.(() => {
    if (wakeTimer !== null) return
    wakeTimer = setTimeout(() => {
      wakeTimer = null
      worker?.postMessage({ type: 'appended' } satisfies ToProjectorThread)
    }, WAKE_COALESCE_MS)
  })
  start()

  return {
    lag: () => last?.orders.lag ?? 0,
    up: () => worker !== null && last !== null && isUp(last.orders),
    status: () => {
      if (last === null || worker !== null || stopping !== null) return last
      const down = <S extends ProjectionStatus>(s: S): S => ({ ...s, state: 'retrying', lastError: 'the projector thread ended; it is being started again' })
      return { orders: down(last.orders), audit: last.audit === null ? null : down(last.audit) }
    },
    webhooks: () => webhooks,
    stop() {
      stopping ??= (async () => {
        unsubscribe?.()
        if (wakeTimer !== null) clearTimeout(wakeTimer)
        stopped.abort()
        const thread = worker
        if (thread === null) return
        const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()))
        thread.postMessage({ type: 'stop' } satisfies ToProjectorThread)
        // A store that hangs on close (a cluster gone away) must not hold up the shutdown.
        const timer = setTimeout(() => {
          log.error({ timeoutMs: STOP_TIMEOUT_MS }, 'projector: its thread did not stop in time; ending it')
          void thread.terminate()
        }, STOP_TIMEOUT_MS)
        await exited
        clearTimeout(timer)
      })()
      return stopping
    },
  }
}
