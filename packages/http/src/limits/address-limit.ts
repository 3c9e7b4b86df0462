import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { WaybillError } from '@waybill/domain'
import { FixedWindowCounts } from './fixed-window.js'

export interface AddressLimitOptions {
  /** Requests one client address may make per window, with or without a key. */
  readonly max: number
  readonly windowMs: number
}

/**
 * A fixed window per client address (X-Forwarded-For's client when a trusted proxy sets it), run
 * before the key check: requests without a valid key never reach the per-key limit, and each
 * unknown key would otherwise cost a store read. Set well above the per-key limit, so a courier
 * with one key behind one address meets the per-key limit first.
 */
async function addressLimit(app: FastifyInstance, options: AddressLimitOptions): Promise<void> {
  const counts = new FixedWindowCounts(options.windowMs)
  app.addHook('onRequest', (request, _reply, done) => {
    if (counts.add(request.ip) <= options.max) {
      done()
      return
    }
    const seconds = counts.secondsLeft()
    done(new WaybillError('rate_limited', `At most ${options.max} requests per ${options.windowMs} ms from one address; retry after ${seconds} s`,
      { headers: { 'retry-after': String(seconds) } }))
  })
}

export default fp(addressLimit, { name: 'waybill-address-limit' })
