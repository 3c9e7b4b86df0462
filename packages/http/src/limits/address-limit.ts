import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { WaybillError } from '@waybill/domain'

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
  let windowEnds = Date.now() + options.windowMs
  let counts = new Map<string, number>()
  app.addHook('onRequest', (request, _reply, done) => {
    const now = Date.now()
    if (now >= windowEnds) {
      // A new window forgets every address at once: no per-address timers, memory bounded by
      // the addresses seen in one window.
      counts = new Map()
      windowEnds = now + options.windowMs
    }
    const count = (counts.get(request.ip) ?? 0) + 1
    counts.set(request.ip, count)
    if (count <= options.max) {
      done()
      return
    }
    const seconds = Math.max(1, Math.ceil((windowEnds - now) / 1000))
    done(new WaybillError('rate_limited', `At most ${options.max} requests per ${options.windowMs} ms from one address; retry after ${seconds} s`,
      { headers: { 'retry-after': String(seconds) } }))
  })
}

export default fp(addressLimit, { name: 'waybill-address-limit' })
