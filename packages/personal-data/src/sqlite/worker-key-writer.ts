import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads'
import type { OrderKey } from '../seal.js'
import type { KeyRequest } from '../key-store.js'
import type { KeyWriter } from './key-writer.js'
import type { FromKeyWorker, PostedKey, ToKeyWorker } from './key-writer-protocol.js'

// Under tap the sources run as TypeScript, so the thread is the `.ts` file; built, `.js`.
const THREAD_URL = new URL(`./key-writer-thread.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url)

const keyOf = (posted: PostedKey): OrderKey | 'erased' =>
  posted === 'erased' ? posted : { id: posted.id, secret: Buffer.from(posted.secret.buffer, posted.secret.byteOffset, posted.secret.byteLength) }

/** The servers' key writer: a thread that commits every key asked for meanwhile in one transaction. */
export class WorkerKeyWriter implements KeyWriter {
  readonly #worker: Worker
  readonly #port: MessagePort
  readonly #pending = new Map<number, { resolve: (keys: Array<OrderKey | 'erased'>) => void; reject: (error: Error) => void }>()
  readonly #queued: Array<{ id: number; requests: readonly KeyRequest[] }> = []
  #nextId = 1
  #closed: Promise<void> | null = null
  #broken: Error | null = null

  private constructor(worker: Worker, port: MessagePort) {
    this.#worker = worker
    this.#port = port
    port.on('message', (message: FromKeyWorker) => this.#receive(message))
    worker.on('error', (error) => this.#fail(error))
    worker.on('exit', (code) => this.#fail(new Error(`the key writer thread exited (code ${code})`)))
  }

  static async open(path: string): Promise<WorkerKeyWriter> {
    const { port1, port2 } = new MessageChannel()
    const worker = new Worker(THREAD_URL, { workerData: { path, port: port2 }, transferList: [port2] })
    const first = await new Promise<FromKeyWorker>((resolve, reject) => {
      port1.once('message', resolve)
      worker.once('error', reject)
    })
    worker.removeAllListeners()
    if (first.type !== 'ready') {
      port1.close()
      await worker.terminate()
      throw new Error(first.type === 'open_failed' ? first.message : `the key writer thread answered ${first.type}`)
    }
    return new WorkerKeyWriter(worker, port1)
  }

  create(requests: readonly KeyRequest[]): Promise<Array<OrderKey | 'erased'>> {
    if (this.#broken !== null) return Promise.reject(this.#broken)
    if (this.#closed !== null) return Promise.reject(new Error('the key store is closed'))
    const id = this.#nextId++
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject })
      this.#queued.push({ id, requests })
      // Sent at the end of this turn, with every key asked meanwhile: one message (and one wake
      // of the thread) for the new orders of a turn instead of one each; the thread commits
      // everything waiting in one transaction anyway.
      if (this.#queued.length === 1) setImmediate(this.#flushQueued)
    })
  }

  close(): Promise<void> {
    this.#closed ??= new Promise<void>((resolve) => {
      this.#worker.once('exit', () => resolve())
      this.#post({ type: 'close' })
    })
    return this.#closed
  }

  readonly #flushQueued = (): void => {
    if (this.#queued.length > 0) this.#port.postMessage({ type: 'create', items: this.#queued.splice(0) } satisfies ToKeyWorker)
  }

  #post(message: ToKeyWorker): void {
    // Whatever else is sent goes after the creates asked before it.
    this.#flushQueued()
    this.#port.postMessage(message)
  }

  #receive(message: FromKeyWorker): void {
    if (message.type === 'created') {
      message.ids.forEach((id, i) => {
        this.#pending.get(id)?.resolve((message.keys[i] ?? []).map(keyOf))
        this.#pending.delete(id)
      })
    } else if (message.type === 'failed') {
      for (const id of message.ids) {
        this.#pending.get(id)?.reject(Object.assign(new Error(`could not make a subject key: ${message.message}`), { code: message.code }))
        this.#pending.delete(id)
      }
    } else if (message.type === 'closed') {
      this.#port.close()
    }
  }

  #fail(error: Error): void {
    if (this.#closed !== null) return
    this.#broken = error
    for (const waiter of this.#pending.values()) waiter.reject(error)
    this.#pending.clear()
  }
}
