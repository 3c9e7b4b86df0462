import { comparePositions, positionToString, type BackoffPolicy, type EventStore, type Position } from '@waybill/event-store'
import type { SubjectKeyStore } from '@waybill/personal-data'
import { auditProjection } from '../audit/audit-projection.js'
import type { AuditOptions } from '../audit/head-maker.js'
import type { SigningStatus } from '../audit/head-signing.js'
import { ordersProjection } from '../orders/orders-projection.js'
import { storeEventSource, type EventSource } from './event-source.js'
import { silentLogger, type ProjectorLogger } from './logger.js'
import { startProjectionLoop, type ProjectionLoop } from './projection-loop.js'
import type { AppliedCount, Projection, ProjectionRead } from './projection.js'
import type { ProjectionStatus } from './status.js'

export interface ProjectorOptions {
  /** The store to read; ignored when `source` is given. */
  readonly store?: EventStore
  /**
   * Makes the source each projection reads (one each: every loop waits for appends on its
   * own), given what the projection reads of each event. Default `storeEventSource(store, read)`.
   */
  readonly source?: (read: ProjectionRead) => EventSource
  /** The data directory; each projection's live file is found through its generation pointer. */
  readonly dataDir: string
  /** The subject keys, with which the read model opens each event's personal part (docs/design.md#personal-data). */
  readonly keys: Pick<SubjectKeyStore, 'get'>
  /** Events per transaction. Default 1,000. */
  readonly batchSize?: number
  /** Longest wait between polls when nothing wakes a projection. Default 250 ms. */
  readonly pollMs?: number
  /** Each projection's retry after a failure. Default 100 ms doubling to 5 s, jittered. */
  readonly retry?: BackoffPolicy
  readonly logger?: ProjectorLogger
  /**
   * Keeps the audit log too, as a projection of its own, and signs its tree heads with this
   * (docs/audit.md#signed-tree-heads); only the orders read model when absent.
   */
  readonly audit?: AuditOptions
}

/** The audit log's loop, with its signing. */
export interface AuditLogStatus extends ProjectionStatus, SigningStatus {}

export interface ProjectorStatus {
  readonly orders: ProjectionStatus
  /** Null when this projector does not keep the audit log. */
  readonly audit: AuditLogStatus | null
}

export interface Projector {
  /** Stops every projection after its batch in flight; resolves once their files are closed. */
  stop(): Promise<void>
  /** The orders read model's lag in events as last counted (a gauge). */
  lag(): number
  status(): ProjectorStatus
  /** Resolves once every projection's checkpoint is at or past `position` (tests and tools use it). */
  waitFor(position: Position, timeoutMs?: number): Promise<void>
}

const DEFAULT_RETRY: BackoffPolicy = { initialMs: 100, maxMs: 5_000 }

/**
 * Runs the projections in this process, each in a loop of its own with its own source,
 * checkpoint and retry (`runner/projection-loop.ts`): the `orders` read model, and with `audit`
 * the audit log, which signs heads. A full disk or a refused file stops the one it concerns;
 * the other keeps going.
 */
export function startProjector(options: ProjectorOptions): Projector {
  const { store } = options
  const makeSource = options.source ?? (store !== undefined ? (read: ProjectionRead) => storeEventSource(store, read) : undefined)
  if (makeSource === undefined) throw new TypeError('startProjector needs a store or a source')
  const log = options.logger ?? silentLogger
  const abort = new AbortController()
  const waiters = new Set<() => void>()
  const notify = (): void => { for (const waiter of waiters) waiter() }
  const sources: EventSource[] = []
  const run = <Outcome extends AppliedCount>(projection: Projection<Outcome>): ProjectionLoop => {
    const source = makeSource(projection.read ?? {})
    sources.push(source)
    return startProjectionLoop({
      projection, source, log, signal: abort.signal, onChange: notify,
      batchSize: options.batchSize ?? 1000, pollMs: options.pollMs ?? 250, retry: options.retry ?? DEFAULT_RETRY,
    })
  }
  const orders = run(ordersProjection(options.dataDir, options.keys, log))
  const signed = options.audit === undefined ? null : auditProjection(options.dataDir, options.audit, log)
  const audit = signed === null ? null : { projection: signed, loop: run(signed) }
  const loops = audit === null ? [orders] : [orders, audit.loop]

  let stopping: Promise<void> | null = null

  return {
    stop() {
      stopping ??= (async () => {
        abort.abort()
        await Promise.all(loops.map((loop) => loop.done))
        for (const source of sources) source.close?.()
        notify()
      })()
      return stopping
    },
    lag: () => orders.status().lag,
    status: () => ({
      orders: orders.status(),
      audit: audit === null ? null : { ...audit.loop.status(), ...audit.projection.signing() },
    }),
    waitFor(position, timeoutMs = 10_000) {
      return new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (loops.every((loop) => reached(loop.checkpoint(), position))) {
            finish()
            resolve()
          } else if (loops.some((loop) => loop.status().state === 'stopped')) {
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
          reject(new Error(`projector did not reach ${positionToString(position)} within ${timeoutMs} ms`))
        }, timeoutMs)
        waiters.add(check)
        check()
      })
    },
  }
}

function reached(checkpoint: Position | null, position: Position): boolean {
  return checkpoint !== null && comparePositions(checkpoint, position) >= 0
}
