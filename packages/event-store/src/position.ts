import type { Position } from './port.js'

/**
 * The position before every event: `readAll({ after: START_POSITION })` reads from the beginning.
 * The SQLite adapter numbers events from 1, so no event ever sits at it.
 */
export const START_POSITION: Position = Object.freeze({ commit: 0n, prepare: 0n })

/** `"<commit>/<prepare>"`, the form checkpoints and cursors keep; `parsePosition` reads it back. */
export function positionToString(position: Position): string {
  return `${position.commit}/${position.prepare}`
}

/** Reads `"<commit>/<prepare>"` or a bare `"<n>"` (commit = prepare = n). Throws RangeError otherwise. */
export function parsePosition(text: string): Position {
  const match = /^(\d{1,20})(?:\/(\d{1,20}))?$/.exec(text)
  if (match === null) throw new RangeError(`not a position: "${text}"`)
  const commit = BigInt(match[1] as string)
  const prepare = match[2] === undefined ? commit : BigInt(match[2])
  return { commit, prepare }
}

/** Negative, zero or positive as `a` is before, at or after `b` in the global log. */
export function comparePositions(a: Position, b: Position): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1
  return 0
}
