import { StoreUnavailableError } from '../errors.js'
import type { PreflightCheck } from './check.js'
import { expect } from './check.js'

/** Closing waits for appends in flight; afterwards every call fails as a store outage. */
export const cleanClose: PreflightCheck = {
  name: 'clean close: appends in flight finish, later calls fail',
  async run(context) {
    const other = await context.open()
    const stream = context.stream()
    const inFlight = Array.from({ length: 5 }, (_, i) => other.appendToStream(`${stream}x${i}`, [context.event()], { expectedRevision: 'no_stream' }))
    const closed = other.close()
    const settled = await Promise.allSettled(inFlight)
    await closed
    // Each resolved append was acknowledged as durable: close did not cut it short.
    const failed = settled.filter((result) => result.status === 'rejected')
    expect(failed.length === 0, `appends in flight at close failed: ${failed.map((f) => String(f.reason)).join('; ')}`)
    const after = await other.readStream(stream).then(() => null, (error: unknown) => error)
    expect(after instanceof StoreUnavailableError, 'a read after close fails with StoreUnavailableError')
    const append = await other.appendToStream(stream, [context.event()]).then(() => null, (error: unknown) => error)
    expect(append instanceof StoreUnavailableError, 'an append after close fails with StoreUnavailableError')
  },
}
