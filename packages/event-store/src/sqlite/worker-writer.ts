import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads'
import { StoreUnavailableError } from '../errors.js'
import { outcomeAt, type AppendOutcome, type AppendRequest } from './append-request.js'
import type { FromWorker, QueuedAppend, ToWorker, WorkerConfig } from './worker-protocol.js'
import { siblingWorkerUrl } from './worker-url.js'
import { reportOf, type Writer, type WriterOptions } from './writer.js'

const WORKER_URL = siblingWorkerUrl('write-worker', import.meta.url)
/** Longest wait to gather appends while the worker is busy with earlier ones. */
const GATHER_MS = 1

/** The main thread's side of the writer worker: posts appends, settles them from batch reports. */
export class WorkerWriter implements Writer {
  readonly #worker: Worker
  readonly #port: MessagePort
  readonly #options: WriterOptions
  readonly #pending = new Map<number, (outcome: AppendOutcome) => void>()
  readonly #pragmas = new Map<number, (value: number) => void>()
  readonly #queued: QueuedAppend[] = []
  #nextId = 1
  #broken: StoreUnavailableError | null = null
  #closed: Promise<void> | null = null
  #onClosed: () => void = () => {}

  private constructor(worker: Worker, port: MessagePort, options: WriterOptions) {
    this.#worker = worker
    this.#port = port
    this.#options = options
  }

  static async open(options: WriterOptions): Promise<WorkerWriter> {
    const { port1, port2 } = new MessageChannel()
    const config: WorkerConfig = {
      path: options.path, busyTimeoutMs: options.busyTimeoutMs, maxBatchSize: options.maxBatchSize,
      walAutocheckpointPages: options.walAutocheckpointPages,
    }
    const worker = new Worker(WORKER_URL, { workerData: { config, port: port2 }, transferList: [port2] })
    const first = await new Promise<FromWorker>((resolve, reject) => {
      port1.once('message', resolve)
      worker.once('error', reject)
      worker.once('exit', (code) => reject(new StoreUnavailableError(`sqlite writer exited (code ${code}) while opening`)))
    })
    worker.removeAllListeners()
    if (first.type !== 'ready') {
      const failure = first.type === 'open_failed' ? first : { message: `unexpected ${first.type}`, code: undefined }
      port1.close()
      await worker.terminate()
      const error = Object.assign(new Error(failure.message), { code: failure.code })
      throw error
    }
    const writer = new WorkerWriter(worker, port1, options)
    port1.on('message', (message: FromWorker) => writer.#receive(message))
    worker.on('error', (error) => writer.#fail(error))
    worker.on('exit', (code) => writer.#fail(new Error(`exited with code ${code}`)))
    return writer
  }

  append(request: AppendRequest): Promise<AppendOutcome> {
    if (this.#broken !== null) return Promise.reject(this.#broken)
    if (this.#closed !== null) return Promise.reject(new StoreUnavailableError('the event store is closed'))
    return new Promise((resolve) => {
      const id = this.#nextId++
      this.#pending.set(id, resolve)
      this.#queued.push({ id, request })
      if (this.#queued.length === 1) {
        // Nothing in the worker's hands: send at the end of this turn. The worker busy with
        // appends sent earlier: these wait for that commit anyway, so gather them for up to
        // GATHER_MS and send fewer, larger messages (pnpm bench: about +9% req/s; each message
        // also wakes the worker on a machine whose cores the requests need).
        if (this.#pending.size === 1) setImmediate(this.#flushQueued)
        else setTimeout(this.#flushQueued, GATHER_MS)
      }
    })
  }

  setMaxPageCount(pages: number): Promise<number> {
    if (this.#broken !== null) return Promise.reject(this.#broken)
    return new Promise((resolve) => {
      const id = this.#nextId++
      this.#pragmas.set(id, resolve)
      this.#send({ type: 'max_page_count', id, pages })
    })
  }

  close(): Promise<void> {
    this.#closed ??= this.#broken !== null
      ? this.#worker.terminate().then(() => undefined)
      : new Promise<void>((resolve) => {
        // The worker handles messages in order, so every append posted before this is answered first.
        this.#onClosed = resolve
        this.#send({ type: 'close' })
      })
    return this.#closed
  }

  // Appends go over together, in one message: the worker takes everything waiting into one
  // transaction anyway.
  readonly #flushQueued = (): void => {
    if (this.#queued.length === 0) return
    this.#port.postMessage({ type: 'appends', items: this.#queued.splice(0) } satisfies ToWorker)
  }

  #send(message: ToWorker): void {
    // Whatever else is sent goes after the appends taken before it, as the worker expects.
    this.#flushQueued()
    this.#port.postMessage(message)
  }

  #receive(message: FromWorker): void {
    if (message.type === 'batch') {
      this.#options.onBatch(reportOf(message.outcomes))
      message.ids.forEach((id, i) => {
        const resolve = this.#pending.get(id)
        this.#pending.delete(id)
        resolve?.(outcomeAt(message.outcomes, i))
      })
    } else if (message.type === 'pragma') {
      this.#pragmas.get(message.id)?.(message.value)
      this.#pragmas.delete(message.id)
    } else if (message.type === 'closed') {
      this.#port.close()
      this.#worker.removeAllListeners('exit')
      this.#worker.once('exit', () => this.#onClosed())
    }
  }

  /** The worker died: every append in flight fails as unavailable (none was acknowledged). */
  #fail(cause: unknown): void {
    this.#broken ??= new StoreUnavailableError(`sqlite writer failed: ${(cause as Error).message}`, { cause })
    const failure = { ok: false, failure: { kind: 'unavailable', message: this.#broken.message } } as const
    for (const resolve of this.#pending.values()) resolve(failure)
    this.#pending.clear()
    this.#onClosed()
  }
}
