import closeWithGrace from 'close-with-grace'

/**
 * Closes gracefully on SIGINT/SIGTERM (and on an uncaught error): `close` lets in-flight work
 * finish (the server's requests, the projector's batch); after `delayMs` the process exits
 * regardless. Resolves once closing is done, with the exit code the process should end with.
 * It lives in the cli because it serves every long-running command, HTTP or not.
 */
export function closeOnSignals(close: () => Promise<void>, options: { readonly delayMs?: number; readonly log?: (line: string) => void } = {}): Promise<number> {
  return new Promise((resolve) => {
    closeWithGrace({ delay: options.delayMs ?? 10_000 }, async ({ signal, err }) => {
      if (err !== undefined) options.log?.(`waybill: closing after an uncaught error: ${err.message}`)
      else if (signal !== undefined) options.log?.(`waybill: ${signal} received, finishing in-flight requests`)
      try {
        await close()
      } finally {
        resolve(err !== undefined ? 1 : 0)
      }
    })
  })
}
