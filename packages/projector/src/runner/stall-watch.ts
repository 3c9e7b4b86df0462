import type { ProjectorStatus } from './start-projector.js'
import type { ProjectionStatus } from './status.js'

/** How long a projection may fail, or leave events waiting without moving, before it is stuck. */
export const STALL_AFTER_MS = 30_000

/** A projection found stuck, and why (no path, no error text: readiness says it in public). */
export interface Stall {
  readonly projection: string
  readonly reason: string
}

/**
 * Tells from a projector's successive statuses which projections are stuck: not up (retrying,
 * every batch failing, or not past their first batch) for `afterMs`, or up with events waiting
 * (lag > 0) and their checkpoint unmoved for `afterMs`. A short failure that passes, or a projection
 * that is behind but moving, is not stuck. It samples: call it whenever the answer is wanted (a
 * probe, a scrape) with the status of the moment; what moved is judged between calls.
 */
export function stallWatch(afterMs = STALL_AFTER_MS, now: () => number = Date.now): (status: ProjectorStatus) => Stall[] {
  const watches = new Map<string, (status: ProjectionStatus, at: number) => string | null>()
  return (status) => {
    const at = now()
    const stalls: Stall[] = []
    for (const [projection, current] of [['orders', status.orders], ['audit', status.audit]] as const) {
      if (current === null) continue
      let watch = watches.get(projection)
      if (watch === undefined) {
        watch = projectionWatch(afterMs)
        watches.set(projection, watch)
      }
      const reason = watch(current, at)
      if (reason !== null) stalls.push({ projection, reason: `${projection} projection ${reason}` })
    }
    return stalls
  }
}

function projectionWatch(afterMs: number): (status: ProjectionStatus, at: number) => string | null {
  // Since when it has not been seen up (its last batch committed): a thread that dies and is
  // started again flips between starting and retrying, and neither alone may last `afterMs`.
  let upAt: number | null = null
  let checkpoint: string | null | undefined
  let movedAt = 0
  return (status, at) => {
    upAt ??= at
    if (status.checkpoint !== checkpoint) {
      checkpoint = status.checkpoint
      movedAt = at
    }
    const seconds = (since: number): number => Math.round((at - since) / 1000)
    switch (status.state) {
      case 'retrying':
        return at - upAt >= afterMs ? `failing for ${seconds(upAt)} s` : null
      case 'starting':
        return at - upAt >= afterMs ? `not started after ${seconds(upAt)} s` : null
      case 'running':
      case 'caught_up':
        upAt = at
        return status.lag > 0 && at - movedAt >= afterMs
          ? `stuck for ${seconds(movedAt)} s with ${status.lag} events waiting` : null
      case 'stopped':
        return null
    }
  }
}
