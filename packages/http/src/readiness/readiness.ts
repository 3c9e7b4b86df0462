import { RefusedFileError, stallWatch, STALL_AFTER_MS, type ProjectorStatus } from '@waybill/projector'
import type { EventStore } from '@waybill/event-store'
import type { SpaceWatch } from './space.js'

/** What readiness checks, each a label of `waybill_readiness_failing`. */
export const READINESS_CHECKS = ['disk', 'store', 'read_model', 'audit_log', 'projector'] as const
export type ReadinessCheck = (typeof READINESS_CHECKS)[number]

export interface FailedCheck {
  readonly check: ReadinessCheck
  /** Said to anyone (the probe is keyless): no path, no key, no error's own text. */
  readonly reason: string
}

export interface ReadinessOptions {
  readonly space: SpaceWatch
  readonly store: Pick<EventStore, 'headPosition'>
  /** A cheap read that fails the way the read routes' reads would fail. */
  readonly readModel: { checkpoint(): unknown }
  readonly auditLog: { size(): number }
  /** The projector of this process, when one runs here. */
  readonly projector?: () => ProjectorStatus | null
  /** How long the store may take to answer. Default 2,000 ms. */
  readonly storeTimeoutMs?: number
  /** How long a projection may fail, or leave events waiting unmoved, before it is stuck. Default 30 s. */
  readonly stallAfterMs?: number
  /** Told when the answer changes (not on every probe). */
  readonly log: { warn(object: object, message: string): void; info(object: object, message: string): void }
}

/**
 * How long an answer is reused: probes and scrapes within it share one check, so a flood of
 * keyless /readyz requests costs one statfs, one head read and two SQLite reads a second.
 */
const ANSWER_TTL_MS = 1_000
/** A projector that has reported nothing yet is starting. */
const NOT_REPORTED: ProjectorStatus = {
  orders: { state: 'starting', path: null, checkpoint: null, head: null, lag: 0, appliedEvents: 0, lastError: null },
  audit: null,
}

/**
 * Whether this instance can do its work (docs/contract.md#health-probes): writes do not fail
 * for lack of space, the event store answers, the read model and the audit log can be read, and
 * the projector of this process is not stuck. Each check that fails gives a public reason.
 */
export function readiness(options: ReadinessOptions) {
  const timeoutMs = options.storeTimeoutMs ?? 2_000
  const stalls = stallWatch(options.stallAfterMs ?? STALL_AFTER_MS)
  let last: { at: number; answer: Promise<FailedCheck[]> } | null = null
  let said = ''

  const storeAnswers = async (): Promise<boolean> => {
    let timer: NodeJS.Timeout | undefined
    try {
      await Promise.race([
        options.store.headPosition(),
        new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs) }),
      ])
      return true
    } catch {
      return false
    } finally {
      clearTimeout(timer)
    }
  }
  // Why a file could not be read, for the log (which may name paths), by check.
  const causes = new Map<ReadinessCheck, string>()
  const readable = (check: ReadinessCheck, what: string, read: () => unknown): FailedCheck | null => {
    try {
      read()
      causes.delete(check)
      return null
    } catch (error) {
      causes.set(check, error instanceof Error ? error.message : String(error))
      return { check, reason: error instanceof RefusedFileError ? `${what} unreadable: ${error.summary}` : `${what} unreadable` }
    }
  }

  const check = async (): Promise<FailedCheck[]> => {
    const [full, answers] = await Promise.all([options.space.full().catch(() => false), storeAnswers()])
    const failing: FailedCheck[] = []
    if (full) failing.push({ check: 'disk', reason: 'disk full' })
    if (!answers) failing.push({ check: 'store', reason: 'event store unreachable' })
    for (const failed of [
      readable('read_model', 'read model', () => options.readModel.checkpoint()),
      readable('audit_log', 'audit log', () => options.auditLog.size()),
    ]) if (failed !== null) failing.push(failed)
    if (options.projector !== undefined) {
      for (const stall of stalls(options.projector() ?? NOT_REPORTED)) failing.push({ check: 'projector', reason: `projector: ${stall.reason}` })
    }
    // Logged when the checks failing change, not on every probe (a stall's reason counts seconds).
    const now = failing.map((f) => f.check).join(',')
    if (now !== said) {
      if (now === '') options.log.info({ readiness: 'ready' }, 'ready again')
      else {
        const reasons = failing.map((f) => f.reason)
        options.log.warn({ readiness: 'not_ready', reasons, causes: Object.fromEntries(causes) }, `not ready: ${reasons.join('; ')}`)
      }
      said = now
    }
    return failing
  }

  return {
    /** The checks failing now (none: ready); an answer is reused for a second. */
    failing(): Promise<FailedCheck[]> {
      const at = Date.now()
      if (last === null || at - last.at >= ANSWER_TTL_MS) last = { at, answer: check() }
      return last.answer
    },
  }
}

export type Readiness = ReturnType<typeof readiness>
