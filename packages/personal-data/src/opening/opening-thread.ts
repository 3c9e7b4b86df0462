import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'
import type { SealedPersonal } from '@waybill/domain'
import type { OrderKey } from '../seal.js'
import type { FromOpening, OpeningItem, ToOpening } from './protocol.js'

// Under tap the sources run as TypeScript, so the thread is the `.ts` file; built, `.js`.
const WORKER_URL = new URL(`./opening-worker.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url)

/** A sealed part of an order event, with its order's key and what it is bound to. */
export interface SealedItem {
  readonly key: OrderKey
  readonly context: string
  readonly sealed: SealedPersonal
}

type Pending = { resolve: (texts: ReadonlyArray<string | null>) => void; reject: (error: Error) => void }

/**
 * Threads that open sealed parts (AES-256-GCM, and each key's derivation once) beside the
 * caller's: a rebuild reads and folds on its thread while these open the batches ahead, which is
 * more than half of a rebuild's CPU (docs/design.md#read-model-generations-and-rebuild). Each
 * batch is split between the threads. Answers each part's text, or null where it does not open:
 * the caller then opens it itself, so that a changed part throws the same `SealBrokenError`, on
 * the caller's thread, as without them. The keys they are sent are held until `close()`.
 */
export class OpeningThreads {
  readonly #workers: Worker[]
  readonly #pending = new Map<number, Pending>()
  #nextId = 1
  #broken: Error | null = null

  /**
   * `threads`: default one per core but the caller's, at least one and at most two: the caller's
   * own part of a rebuild (reading, folding, writing) takes about as long as opening on two.
   */
  constructor(threads = Math.min(2, Math.max(1, availableParallelism() - 1))) {
    this.#workers = []
    try {
      for (let i = 0; i < threads; i += 1) this.#workers.push(this.#start())
    } catch (error) {
      // None left running to keep the process alive.
      for (const worker of this.#workers) void worker.terminate()
      throw error
    }
  }

  #start(): Worker {
    const worker = new Worker(WORKER_URL)
    worker.on('message', (message: FromOpening) => {
      const pending = this.#pending.get(message.id)
      this.#pending.delete(message.id)
      pending?.resolve(message.texts.split('\n').map((text) => text === '' ? null : text))
    })
    worker.on('error', (error) => this.#fail(error))
    worker.on('exit', (code) => this.#fail(new Error(`an opening thread exited (code ${code})`)))
    return worker
  }

  /** Each item's opened text, in order, or null where it did not open. */
  async open(items: readonly SealedItem[]): Promise<ReadonlyArray<string | null>> {
    const share = Math.ceil(items.length / this.#workers.length)
    const parts = this.#workers.map((worker, i) => this.#send(worker, items.slice(i * share, (i + 1) * share)))
    return (await Promise.all(parts)).flat()
  }

  /** Ends the threads, and with them every key they held. */
  async close(): Promise<void> {
    this.#broken ??= new Error('the opening threads are closed')
    for (const worker of this.#workers) worker.removeAllListeners('exit')
    await Promise.all(this.#workers.map((worker) => worker.terminate()))
    this.#fail(this.#broken)
  }

  #send(worker: Worker, items: readonly SealedItem[]): Promise<ReadonlyArray<string | null>> {
    if (this.#broken !== null) return Promise.reject(this.#broken)
    if (items.length === 0) return Promise.resolve([])
    // Each secret copied into 32 bytes of its own: a message clones a view's whole buffer, and a
    // secret read into a shared one would take its neighbours along.
    const keys = new Map<string, Uint8Array>()
    for (const { key } of items) if (!keys.has(key.id)) keys.set(key.id, Uint8Array.from(key.secret))
    const id = this.#nextId++
    const message: ToOpening = {
      id,
      keys: [...keys],
      items: JSON.stringify(items.map(({ key, context, sealed }): OpeningItem => [key.id, context, sealed.iv, sealed.box])),
    }
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject })
      worker.postMessage(message)
    })
  }

  #fail(error: Error): void {
    this.#broken ??= error
    for (const { reject } of this.#pending.values()) reject(error)
    this.#pending.clear()
  }
}
