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

/**
 * Moves an endpoint's count of pending messages by `delta`: called, in the same transaction, by
 * every change of a message's state (queued, delivered, replayed; a removed endpoint takes its
 * count with it). Not a trigger: a trigger makes SQLite keep a statement journal for every insert
 * of the queue, which tripled its cost.
 */
export function countPending(db: Database, endpointId: string, delta: number): void {
  if (delta !== 0) statement(db, 'UPDATE endpoints SET pending = pending + ? WHERE id = ?').run(delta, endpointId)
}

/**
 * Pending messages of an endpoint (the count `countPending` keeps), and when the oldest of
 * them was accepted (the first entry of an index): both without reading the backlog's rows.
 */
export function backlogOf(db: Database, endpointId: string): { readonly pending: number; readonly oldestReceivedAt: string | null } {
  const row = statement<[string, string], { pending: number; oldest: string | null }>(db, `SELECT pending,
    (SELECT MIN(received_at) FROM messages WHERE endpoint_id = ? AND state = 'pending') AS oldest FROM endpoints WHERE id = ?`).get(endpointId, endpointId)
  return { pending: row?.pending ?? 0, oldestReceivedAt: row?.oldest ?? null }
}
