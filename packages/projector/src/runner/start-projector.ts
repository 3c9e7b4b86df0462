import type { EventStore, Position } from '@waybill/event-store'
import { storeEventSource, type EventSource } from './event-source.js'
import { currentGeneration, generationMarker } from '../orders/generation.js'
import { ReadModelWriter } from '../orders/writer.js'

/** The few logger methods the projector uses; pino's and Fastify's loggers fit. */
export interface ProjectorLogger {
  info(object: object, message?: string): void
  warn(object: object, message?: string): void
  error(object: object, message?: string): void
}

export interface ProjectorOptions {
  /** The store to read; ignored when `source` is given. */
  readonly store?: EventStore
  readonly source?: EventSource
  /** The data directory; the live read model file is found through its generation pointer. */
  readonly dataDir: string
  /** Events per transaction. Default 1,000. */
  readonly batchSize?: number
  /** Longest wait between polls when nothing wakes the projector. Default 250 ms. */
  readonly pollMs?: number
  /** First and longest retry delay after a failure (doubling in between). Default 100 ms and 5 s. */
  readonly retry?: { readonly minMs?: number; readonly maxMs?: number }
  readonly logger?: ProjectorLogger
}

export type ProjectorState = 'starting' | 'running' | 'caught_up' | 'retrying' | 'stopped'

export interface ProjectorStatus {
  readonly state: ProjectorState
  readonly readModelPath: string | null
  readonly checkpoint: string | null
  readonly head: string | null
  /** Positions behind the head of the log; for the SQLite store, exactly the number of events. */
  readonly lag: number
  readonly appliedEvents: number
  readonly lastError: string | null
}

export interface Projector {
  /** Stops after the batch in flight; resolves once the read model is closed. */
  stop(): Promise<void>
  /** Events behind the head as of the last look (a gauge; refreshed every batch and poll). */
  lag(): number
  status(): ProjectorStatus
  /** Resolves once the checkpoint is at or past `position` (tests and `waybill rebuild` use it). */
  waitFor(position: Position, timeoutMs?: number): Promise<void>
}

const silent: ProjectorLogger = { info() {}, warn() {}, error() {} }

/**
 * Runs the `orders` projection in this process: read a batch after the checkpoint, apply it and
 * move the checkpoint in one transaction, repeat; wait for appends when caught up; on any
 * failure (store gone, disk error) retry with backoff from the stored checkpoint. Follows a
 * `waybill rebuild` swap by reopening the new read model before its next batch.
 */
export function startProjector(options: ProjectorOptions): Projector {
  const source = options.source ?? (options.store !== undefined ? storeEventSource(options.store) : undefined)
  if (source === undefined) throw new TypeError('startProjector needs a store or a source')
  const batchSize = options.batchSize ?? 1000
  const pollMs = options.pollMs ?? 250
  const minRetry = options.retry?.minMs ?? 100
  const maxRetry = options.retry?.maxMs ?? 5000
  const log = options.logger ?? silent
  const abort = new AbortController()

  let db: ReadModelWriter | null = null
  let marker = ''
  let state: ProjectorState = 'starting'
  let checkpoint: Position | null = null
  let head: Position | null = null
  let applied = 0
  let lastError: string | null = null
  const waiters = new Set<() => void>()

  const openCurrent = (): ReadModelWriter => {
    const seen = generationMarker(options.dataDir)
    if (db !== null && seen === marker) return db
    const generation = currentGeneration(options.dataDir)
    db?.close()
    db = new ReadModelWriter(generation.path)
    marker = generation.marker
    log.info({ readModel: generation.path }, 'projector: read model opened')
    return db
  }

  const step = async (): Promise<boolean> => {
    const model = openCurrent()
    const from = model.checkpoint()
    const headNow = await source.headPosition()
    const events = await source.pull(from, batchSize)
    const caughtUp = events.length < batchSize
    // Caught up: no order event lies between the batch and the head read before it, so the
    // checkpoint may move to the head (past other categories) and lag can reach zero.
    const outcome = model.applyBatch(events, caughtUp ? headNow : null)
    for (const event of outcome.unknown) {
      log.warn({ stream: event.streamName, revision: event.revision, type: event.type }, 'projector: unknown event type skipped')
    }
    applied += outcome.applied
    checkpoint = model.checkpoint()
    head = headNow
    for (const notify of waiters) notify()
    return caughtUp
  }

  const run = async (): Promise<void> => {
    let delay = minRetry
    while (!abort.signal.aborted) {
      try {
        const caughtUp = await step()
        if (state === 'retrying') log.info({}, 'projector: resumed')
        state = caughtUp ? 'caught_up' : 'running'
        lastError = null
        delay = minRetry
        if (caughtUp) await source.waitForMore(pollMs, abort.signal)
      } catch (error) {
        lastError = error instanceof Error ? error.message : String(error)
        if (state !== 'retrying') log.error({ err: error }, 'projector: batch failed; retrying with backoff')
        state = 'retrying'
        db?.close()
        db = null
        await sleep(delay, abort.signal)
        delay = Math.min(delay * 2, maxRetry)
      }
    }
  }

  const running = run()

  const lag = (): number => {
    if (head === null) return 0
    const behind = head.commit - (checkpoint?.commit ?? 0n)
    return behind > 0n ? Number(behind) : 0
  }

  return {
    async stop() {
      abort.abort()
      await running
      if (options.source === undefined) source.close?.()
      db?.close()
      db = null
      state = 'stopped'
      for (const notify of waiters) notify()
    },
    lag,
    status: () => ({
      state,
      readModelPath: db?.path ?? null,
      checkpoint: checkpoint === null ? null : `${checkpoint.commit}/${checkpoint.prepare}`,
      head: head === null ? null : `${head.commit}/${head.prepare}`,
      lag: lag(),
      appliedEvents: applied,
      lastError,
    }),
    waitFor(position, timeoutMs = 10_000) {
      return new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (checkpoint !== null && (checkpoint.commit > position.commit ||
            (checkpoint.commit === position.commit && checkpoint.prepare >= position.prepare))) {
            finish()
            resolve()
          } else if (state === 'stopped') {
            finish()
            reject(new Error('projector stopped'))
          }
        }
        const finish = (): void => {
          clearTimeout(timer)
          waiters.delete(check)
        }
        const timer = setTimeout(() => {
          finish()
          reject(new Error(`projector did not reach ${position.commit} within ${timeoutMs} ms`))
        }, timeoutMs)
        waiters.add(check)
        check()
      })
    },
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal.addEventListener('abort', done)
  })
}
