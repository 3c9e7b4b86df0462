import { Worker } from 'node:worker_threads'
import { siblingWorkerUrl, type EventStore } from '@waybill/event-store'
import { WAKE_COALESCE_MS, type ProjectorLogger, type ProjectorStatus } from '@waybill/projector'
import type { WaybillConfig } from './config.js'

const WORKER_URL = siblingWorkerUrl('projector-worker', import.meta.url)

/** First and longest wait before a projector thread that died is started again. */
const RESTART_MIN_MS = 500
const RESTART_MAX_MS = 30_000
/** How long `stop` waits for the thread to finish its batch and close before ending it. */
const STOP_TIMEOUT_MS = 5_000

/** What the projector thread tells the main thread. */
export type FromProjectorThread =
  | { readonly type: 'log'; readonly level: 'info' | 'warn' | 'error'; readonly object: object; readonly message?: string }
  | { readonly type: 'status'; readonly status: ProjectorStatus }

/** What the main thread tells the projector thread. */
export type ToProjectorThread = { readonly type: 'appended' } | { readonly type: 'stop' }

export interface ProjectorThread {
  /** Events behind the head as the thread last reported (a gauge). */
  lag(): number
  /** Whether the thread runs and its projector last read the store without failing. */
  up(): boolean
  /** The thread's last report, null before its first. */
  status(): ProjectorStatus | null
  /** Stops the projector after its batch in flight (signing the last tree head), then the thread. */
  stop(): Promise<void>
}

/**
 * The orders projector of `waybill serve`, on a worker thread of its own: its reads of the log,
 * its read-model transactions and its audit hashing never take the turn of a request on the main
 * thread. The thread opens the store and the signing key itself (as `waybill projector` does)
 * from the same configuration. The main thread passes on the store's append notifications,
 * coalesced, so the read model follows the log as closely as before. Should the thread die (it
 * retries failures itself, so only a bug or running out of memory ends it), it is started again
 * with backoff.
 */
export function startProjectorThread(config: WaybillConfig, store: EventStore, log: ProjectorLogger): ProjectorThread {
  let worker: Worker | null = null
  let last: ProjectorStatus | null = null
  let stopping: Promise<void> | null = null
  let restartDelay = RESTART_MIN_MS
  let restartTimer: NodeJS.Timeout | null = null
  let wakeTimer: NodeJS.Timeout | null = null

  const start = (): void => {
    const started = new Worker(WORKER_URL, { workerData: { config } })
    worker = started
    started.on('message', (message: FromProjectorThread) => {
      if (message.type === 'log') log[message.level](message.object, message.message)
      else {
        last = message.status
        if (message.status.state === 'caught_up' || message.status.state === 'running') restartDelay = RESTART_MIN_MS
      }
    })
    started.on('error', (error) => log.error({ err: error }, 'projector: its thread failed'))
    started.on('exit', (code) => {
      if (worker === started) worker = null
      if (stopping !== null) return
      log.error({ exitCode: code, restartInMs: restartDelay }, 'projector: its thread ended; starting it again')
      restartTimer = setTimeout(() => {
        restartTimer = null
        if (stopping === null) start()
      }, restartDelay)
      restartDelay = Math.min(restartDelay * 2, RESTART_MAX_MS)
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
    lag: () => last?.lag ?? 0,
    up: () => worker !== null && last !== null && last.state !== 'retrying' && last.state !== 'stopped',
    status: () => last,
    stop() {
      stopping ??= (async () => {
        unsubscribe?.()
        if (wakeTimer !== null) clearTimeout(wakeTimer)
        if (restartTimer !== null) clearTimeout(restartTimer)
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
