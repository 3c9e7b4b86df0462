import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads'
import { siblingWorkerUrl } from './worker-url.js'

const WORKER_URL = siblingWorkerUrl('checkpoint-worker', import.meta.url)

/**
 * The writer's commits stay free of WAL checkpoints (measured with `pnpm bench --rate`: an
 * auto-checkpoint inside a commit, every ~1,000 pages, held that batch's acknowledgments for its
 * copy and fsync of the database file, and made most of the p99). This thread checkpoints
 * instead, beside the writer; the writer's `wal_autocheckpoint` is raised to BACKSTOP_PAGES
 * rather than turned off, so that the WAL stays bounded even if this thread falls behind or dies.
 */
export class BackgroundCheckpointer {
  /** The writer's own auto-checkpoint threshold while this thread runs (pages, ~40 MB). */
  static readonly BACKSTOP_PAGES = 10_000

  readonly #worker: Worker
  readonly #port: MessagePort
  readonly #exited: Promise<void>

  private constructor(worker: Worker, port: MessagePort) {
    this.#worker = worker
    this.#port = port
    this.#exited = new Promise((resolve) => worker.once('exit', () => resolve()))
  }

  static start(path: string, busyTimeoutMs: number, intervalMs: number): BackgroundCheckpointer {
    const { port1, port2 } = new MessageChannel()
    const worker = new Worker(WORKER_URL, {
      workerData: { config: { path, busyTimeoutMs, intervalMs }, port: port2 }, transferList: [port2],
    })
    // Its death costs latency, never data: the writer's backstop checkpoint takes over. Said on
    // stderr as a process warning, since this package has no logger of its own.
    worker.on('error', (error) => {
      process.emitWarning(`WAL checkpoint thread stopped (${error.message}); the writer checkpoints by itself from now on`, 'WaybillWarning')
    })
    worker.unref()
    return new BackgroundCheckpointer(worker, port1)
  }

  /** Stops checkpointing and closes the thread's connection. */
  async stop(): Promise<void> {
    // Held from here on: a process whose only other handle is gone must still see the thread
    // close its connection before it ends (unref'd, the wait itself would not keep it alive).
    this.#worker.ref()
    this.#port.postMessage('stop')
    this.#port.close()
    await this.#exited
  }
}
