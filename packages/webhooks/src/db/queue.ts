import type { Database } from 'better-sqlite3'
import { statement } from './statement.js'

/*
 * The one rule of the queue, shared by the deliverer (a message delivered), the operator's enable
 * and replay: within one endpoint, the first pending message of each order (lowest `seq`, which is
 * log order) is the only one that may be due; the order's later messages wait with `due_at` NULL.
 */

/** Makes the first pending message of `stream` due at `at`, unless it already is (or there is none). */
export function promoteHead(db: Database, endpointId: string, stream: string, at: number): void {
  statement(db, `UPDATE messages SET due_at = ? WHERE due_at IS NULL AND seq = (
    SELECT seq FROM messages WHERE endpoint_id = ? AND stream = ? AND state = 'pending' ORDER BY seq LIMIT 1)`).run(at, endpointId, stream)
}

/** Whether message `seq` is the first pending message of its order at its endpoint. */
export function isHead(db: Database, endpointId: string, stream: string, seq: number): boolean {
  const first = statement<[string, string], { seq: number }>(db,
    `SELECT seq FROM messages WHERE endpoint_id = ? AND stream = ? AND state = 'pending' ORDER BY seq LIMIT 1`).get(endpointId, stream)
  return first?.seq === seq
}

/** Pending messages of an endpoint, and when the oldest of them was accepted. */
export function backlogOf(db: Database, endpointId: string): { readonly pending: number; readonly oldestReceivedAt: string | null } {
  const row = statement<[string], { pending: number; oldest: string | null }>(db,
    `SELECT COUNT(*) AS pending, MIN(received_at) AS oldest FROM messages WHERE endpoint_id = ? AND state = 'pending'`).get(endpointId)
  return { pending: row?.pending ?? 0, oldestReceivedAt: row?.oldest ?? null }
}
