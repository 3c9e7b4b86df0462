import { once } from 'node:events'
import closeWithGrace from 'close-with-grace'

export interface StopOptions {
  /** How long closing may take before the process exits regardless (default 10 s). */
  readonly delayMs?: number
  /** Told why the process stops: a signal (`info`) or an uncaught error (`error`, with it). */
  readonly log?: (line: string, level: 'info' | 'error', error?: Error) => void
}

/**
 * Runs a long-running `run` with a signal that SIGINT/SIGTERM (or an uncaught error) abort, its
 * reason the signal's name or the error: `run` then lets in-flight work finish (the server's
 * requests, the projector's batch) and resolves. After `delayMs` the process exits regardless,
 * with 1; once `run` has resolved after a signal it exits with 0, after an uncaught error with 1.
 * If `run` ends on its own (a failed start), the handlers are removed and its result returned.
 * It lives in the cli because it serves every long-running process entry, HTTP or not: the
 * `waybill` command (main.ts) and the bench's servers.
 */
export function stopOnSignals(run: (signal: AbortSignal) => Promise<number>, options: StopOptions = {}): Promise<number> {
  const controller = new AbortController()
  let running: Promise<number> | null = null
  // Not on 'beforeExit': a command that ends on its own sets its own exit code.
  const grace = closeWithGrace({ delay: options.delayMs ?? 10_000, skip: ['beforeExit'] }, async ({ signal, err }) => {
    if (err !== undefined) options.log?.(`waybill: closing after an uncaught error: ${err.message}`, 'error', err)
    else if (signal !== undefined) options.log?.(`waybill: ${signal} received, finishing in-flight requests`, 'info')
    controller.abort(signal ?? err)
    await running
  })
  running = run(controller.signal)
  return running.finally(() => { if (!controller.signal.aborted) grace.uninstall() })
}

/** `stopOnSignals` for a server that only needs closing (the bench's ceiling servers). */
export function closeOnSignals(close: () => Promise<void>, options: StopOptions = {}): Promise<number> {
  return stopOnSignals(async (signal) => {
    await once(signal, 'abort')
    await close()
    return 0
  }, options)
}
