import { positionToString, type Position } from '@waybill/event-store'

export type ProjectionState = 'starting' | 'running' | 'caught_up' | 'retrying' | 'stopped'

/** Where one projection's loop stands: what `waybill projector` prints and `/metrics` reports. */
export interface ProjectionStatus {
  readonly state: ProjectionState
  /** The file it writes, null before it opened one. */
  readonly path: string | null
  /** `"<commit>/<prepare>"` of its checkpoint, null before its first event. */
  readonly checkpoint: string | null
  /** The head of the log when the lag was last counted. */
  readonly head: string | null
  /** Events in the log after the checkpoint, counted up to `LAG_COUNT_LIMIT` (then "at least"). */
  readonly lag: number
  /** Events that changed it since the loop started. */
  readonly appliedEvents: number
  readonly lastError: string | null
}

/** What happened to a loop. */
export type LoopEvent =
  | {
    readonly kind: 'batch'
    readonly path: string
    readonly checkpoint: Position | null
    readonly applied: number
    readonly caughtUp: boolean
    /** Present when the lag was counted again after this batch. */
    readonly lag?: { readonly head: Position | null; readonly events: number }
  }
  | { readonly kind: 'failed'; readonly error: unknown }
  | { readonly kind: 'stopped' }

export const STARTING: ProjectionStatus = {
  state: 'starting', path: null, checkpoint: null, head: null, lag: 0, appliedEvents: 0, lastError: null,
}

/** The status after `event`. */
export function nextStatus(status: ProjectionStatus, event: LoopEvent): ProjectionStatus {
  switch (event.kind) {
    case 'batch':
      return {
        state: event.caughtUp ? 'caught_up' : 'running',
        path: event.path,
        checkpoint: event.checkpoint === null ? null : positionToString(event.checkpoint),
        head: event.lag === undefined ? status.head : event.lag.head === null ? null : positionToString(event.lag.head),
        lag: event.lag?.events ?? status.lag,
        appliedEvents: status.appliedEvents + event.applied,
        lastError: null,
      }
    case 'failed':
      return { ...status, state: 'retrying', lastError: event.error instanceof Error ? event.error.message : String(event.error) }
    case 'stopped':
      return { ...status, state: 'stopped' }
  }
}

/** Whether the projection keeps up: its last batch committed (it is neither retrying nor stopped, and has started). */
export function isUp(status: ProjectionStatus): boolean {
  return status.state === 'running' || status.state === 'caught_up'
}
