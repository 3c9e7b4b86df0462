import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import underPressure from '@fastify/under-pressure'
import { WaybillError } from '@waybill/domain'
import type { AppendBounds } from '../store/bounded-appends.js'

export interface LoadSheddingOptions extends AppendBounds {
  /** Event-loop delay past which requests are refused with 503 before any work. Default 1,000 ms. */
  readonly maxEventLoopDelayMs?: number
}

const DEFAULT_MAX_EVENT_LOOP_DELAY_MS = 1000

function overloaded(detail: string, retryAfter: string): WaybillError {
  return new WaybillError('server_error', detail, { status: 503, headers: { 'retry-after': retryAfter } })
}

/**
 * Refuses work the process cannot do in time: when the event loop lags past the bound, every
 * request gets a retryable 503 `server_error` before its body is read.
 */
async function loadShedding(app: FastifyInstance, options: LoadSheddingOptions): Promise<void> {
  await app.register(underPressure, {
    maxEventLoopDelay: options.maxEventLoopDelayMs ?? DEFAULT_MAX_EVENT_LOOP_DELAY_MS,
    pressureHandler: async () => {
      throw overloaded('The server is overloaded; retry', '1')
    },
  })
}

export default fp(loadShedding, { name: 'waybill-load-shedding' })
