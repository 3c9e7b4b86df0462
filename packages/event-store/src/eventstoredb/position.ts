import type { Position as ClientPosition } from '@eventstore/db-client'
import { comparePositions } from '../position.js'
import type { Position } from '../port.js'

/** The port's position as the client wants it (a fresh object: the client may keep it). */
export function toClientPosition(position: Position): ClientPosition {
  return { commit: position.commit, prepare: position.prepare }
}

/** The client's position as the port carries it. */
export function fromClientPosition(position: ClientPosition): Position {
  return { commit: position.commit, prepare: position.prepare }
}

/** Whether `position` lies strictly after `after` (everything does when `after` is absent). */
export function isAfter(position: Position, after: Position | null | undefined): boolean {
  return after == null || comparePositions(position, after) > 0
}
