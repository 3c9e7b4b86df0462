import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import underPressure from '@fastify/under-pressure'
import { WaybillError } from '@waybill/domain'
import { StoreUnavailableError, type EventStore } from '@waybill/event-store'
import { wrapAppend } from './wrap-append.js'

export interface LoadSheddingOptions {
  /** Appends waiting on the store at once; past it new ones fail at once with 503. Default 1,024. */
  readonly maxPendingAppends?: number
  /** Longest wait for one append before answering 503 (the append may still land; a retry is exact). Default 2,000 ms. */
  readonly appendTimeoutMs?: number
  /** Event-loop delay past which requests are refused with 503 before any work. Default 1,000 ms. */
  readonly maxEventLoopDelayMs?: number
}

const DEFAULTS = { maxPendingAppends: 1024, appendTimeoutMs: 2000, maxEventLoopDelayMs: 1000 }

function overloaded(detail: string, retryAfter: string): WaybillError {
  return new WaybillError('server_error', detail, { status: 503, headers: { 'retry-after': retryAfter } })
}

/**
 * The store with a bound on appends in flight and on the wait for each. A slow or stuck store
 * (another process holding the lock, a stalled disk) then costs a client at most
 * `appendTimeoutMs`, and the queue in front of the writer never grows past `maxPendingAppends`:
 * a timed-out append keeps its slot until the store settles it, so timeouts cannot hide an
 * ever-growing backlog. A 503 is never an acknowledgment; event ids are deterministic, so the
 * client's retry of an append that did land later answers the original success.
 */
export function boundedStore(inner: EventStore, options: LoadSheddingOptions = {}): EventStore {
  const limit = options.maxPendingAppends ?? DEFAULTS.maxPendingAppends
  const timeoutMs = options.appendTimeoutMs ?? DEFAULTS.appendTimeoutMs
  let pending = 0
  return wrapAppend(inner, (streamName, events, appendOptions) => {
    if (pending >= limit) {
      return Promise.reject(new StoreUnavailableError(`${pending} appends already wait for the event store`))
    }
    pending += 1
    const append = inner.appendToStream(streamName, events, appendOptions)
    void append.then(() => { pending -= 1 }, () => { pending -= 1 })
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new StoreUnavailableError(`the event store did not answer within ${timeoutMs} ms`)), timeoutMs)
    })
    return Promise.race([append, timeout]).finally(() => clearTimeout(timer))
  })
}

/**
 * Refuses work the process cannot do in time: when the event loop lags past the bound, every
 * request gets a retryable 503 `server_error` before its body is read.
 */
async function loadShedding(app: FastifyInstance, options: LoadSheddingOptions): Promise<void> {
  await app.register(underPressure, {
    maxEventLoopDelay: options.maxEventLoopDelayMs ?? DEFAULTS.maxEventLoopDelayMs,
    pressureHandler: async () => {
      throw overloaded('The server is overloaded; retry', '1')
    },
  })
}

export default fp(loadShedding, { name: 'waybill-load-shedding' })
