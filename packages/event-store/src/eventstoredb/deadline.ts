import { StoreUnavailableError } from '../errors.js'

/** How long one read may take unless the store is told otherwise. */
export const DEFAULT_READ_TIMEOUT_MS = 10_000

/** A read the client streams; `cancel` ends it on the server too. */
interface CancellableRead<T> extends AsyncIterable<T> {
  cancel?(): Promise<void>
}

/**
 * Iterates a read with a deadline of Waybill's own. The client gives reads and subscriptions no
 * deadline at all (it overrides the caller's with Infinity), so a node that accepts the call
 * and never answers would hold a request, a key check or `/readyz` for ever. On time-out the
 * read is cancelled and the caller gets `StoreUnavailableError`. `onItem` answers 'stop' to end
 * the read early.
 */
export async function readWithin<T>(read: CancellableRead<T>, timeoutMs: number, what: string, onItem: (item: T) => 'stop' | undefined): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      read.cancel?.().catch(() => undefined)
      reject(new StoreUnavailableError(`EventStoreDB did not answer ${what} within ${timeoutMs} ms`))
    }, timeoutMs)
  })
  const drain = (async () => {
    for await (const item of read) {
      // Leaving the loop early ends the read (the iterator's return destroys the stream).
      if (onItem(item) === 'stop') break
    }
  })()
  // The losing side must not surface as an unhandled rejection.
  drain.catch(() => undefined)
  try {
    await Promise.race([drain, expired])
  } finally {
    clearTimeout(timer)
  }
}

/** A single-answer call with the same kind of deadline. */
export async function withinDeadline<T>(call: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreUnavailableError(`EventStoreDB did not answer ${what} within ${timeoutMs} ms`)), timeoutMs)
  })
  call.catch(() => undefined)
  try {
    return await Promise.race([call, expired])
  } finally {
    clearTimeout(timer)
  }
}
