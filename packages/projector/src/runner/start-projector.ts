import type { EventStore, Position } from '@waybill/event-store'
import { storeEventSource, type EventSource } from './event-source.js'
import { currentGeneration, generationMarker } from '../orders/generation.js'
import { ReadModelWriter } from '../orders/writer.js'
import { headMaker, type AuditOptions, type HeadVerdict } from '../audit/head-maker.js'

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
  /** Sign tree heads of the audit log as it grows (docs/audit.md#signed-tree-heads); none when absent. */
  readonly audit?: AuditOptions
}

export type ProjectorState = 'starting' | 'running' | 'caught_up' | 'retrying' | 'stopped'

export interface ProjectorStatus {
  readonly state: ProjectorState
  readonly readModelPath: string | null
  readonly checkpoint: string | null
  readonly head: string | null
  /** Events in the log after the checkpoint, counted up to `LAG_COUNT_LIMIT` (then "at least"). */
  readonly lag: number
  readonly appliedEvents: number
  readonly lastError: string | null
  /** The audit log: its size, the latest head's size, and why heads are not being signed, if they are not. */
  readonly audit: { readonly treeSize: number; readonly headSize: number | null; readonly problem: string | null } | null
}

export interface Projector {
  /** Stops after the batch in flight; resolves once the read model is closed. */
  stop(): Promise<void>
  /** Events behind the head as of the last count (a gauge; counted at most once a second). */
  lag(): number
  status(): ProjectorStatus
  /** Resolves once the checkpoint is at or past `position` (tests and `waybill rebuild` use it). */
  waitFor(position: Position, timeoutMs?: number): Promise<void>
}

const silent: ProjectorLogger = { info() {}, warn() {}, error() {} }

/**
 * Lag is counted in events, up to this many. On EventStoreDB positions are byte offsets in the
 * transaction file, so their difference is no count of anything; counting there means reading,
 * hence the bound and the once-a-second refresh.
 */
export const LAG_COUNT_LIMIT = 10_000
const LAG_REFRESH_MS = 1_000

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
  let lagEvents = 0
  let lagCountedAt = 0
  let lastError: string | null = null
  const waiters = new Set<() => void>()
  const makeHead = options.audit === undefined ? null : headMaker(options.audit)
  let treeSize = 0
  let headSize: number | null = null
  let auditProblem: string | null = null

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
    const batch = await source.pull(from, batchSize)
    const caughtUp = batch.complete
    // The checkpoint moves to the last position this read saw, past other categories, and no
    // further: a head read separately may come from another moment or another node.
    const outcome = model.applyBatch(batch.events, batch.through)
    for (const event of outcome.unknown) {
      log.warn({ stream: event.streamName, revision: event.revision, type: event.type }, 'projector: unknown event type skipped')
    }
    applied += outcome.applied
    checkpoint = model.checkpoint()
    if (makeHead !== null) signHeads(makeHead(model.tree, caughtUp), model.tree.size())
    await countLag(caughtUp)
    for (const notify of waiters) notify()
    return caughtUp
  }

  const signHeads = (verdict: HeadVerdict, size: number): void => {
    treeSize = size
    let problem: string | null = null
    if (verdict.kind === 'signed') {
      headSize = verdict.head.tree_size
      log.info({ audit: { tree_size: verdict.head.tree_size, root_hash: verdict.head.root_hash } }, 'projector: signed a tree head')
    } else if (verdict.kind === 'inconsistent') {
      problem = `the audit tree's root at size ${verdict.head.tree_size} is ${verdict.root}, not the signed head's ${verdict.head.root_hash}: ` +
        'the log or the read model was changed; no head is signed until `waybill audit verify` is run and the cause found'
    } else if (verdict.kind === 'behind') {
      problem = `the audit tree holds ${verdict.treeSize} leaves but a head was signed at ${verdict.headSize}: ` +
        'events were cut from the log, or this read model has not reached it; no head is signed until it does'
    }
    // Loud, once per change: a log line every batch would bury everything else.
    if (problem !== null && problem !== auditProblem) log.error({ audit: { problem } }, 'projector: AUDIT LOG INCONSISTENT WITH A SIGNED HEAD')
    auditProblem = problem
  }

  // Behind, counting means reading up to LAG_COUNT_LIMIT events, so at most once a second;
  // caught up, there is next to nothing to count.
  const countLag = async (caughtUp: boolean): Promise<void> => {
    if (!caughtUp && Date.now() - lagCountedAt < LAG_REFRESH_MS) return
    lagCountedAt = Date.now()
    head = await source.headPosition()
    lagEvents = await source.countAfter(checkpoint, LAG_COUNT_LIMIT)
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

  const lag = (): number => lagEvents

  return {
    async stop() {
      abort.abort()
      await running
      // The last leaves get a head before the process goes, rather than waiting for the next start.
      if (makeHead !== null && db !== null) {
        try {
          signHeads(makeHead(db.tree, true, true), db.tree.size())
        } catch (error) {
          log.error({ err: error }, 'projector: could not sign the last tree head')
        }
      }
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
      audit: makeHead === null ? null : { treeSize, headSize, problem: auditProblem },
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
