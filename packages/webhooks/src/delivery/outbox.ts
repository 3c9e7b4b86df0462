import type { Database } from 'better-sqlite3'
import { ORDER_CATEGORY, parseOrderStreamName } from '@waybill/domain'
import { categoryOf, comparePositions, positionToString, type Position, type ProjectionEvent } from '@waybill/event-store'
import type { AppliedCount } from '@waybill/projector'
import { countPending, promoteHead, isHead } from '../db/queue.js'
import { statement } from '../db/statement.js'
import { endpointOf, endpointWants, type Endpoint, type EndpointRecord } from '../endpoints/endpoint.js'
import { webhookIdFor } from '../signing/webhook-id.js'
import { retryAfterMs, retryDelay } from './schedule.js'
import type { SendResult } from './send.js'

/** A message due for an attempt. */
export interface DueMessage {
  readonly seq: number
  readonly eventId: string
  readonly webhookId: string
  readonly stream: string
  readonly revision: number
  /** Attempts since it was queued, replayed or its endpoint enabled. */
  readonly attempts: number
}

/** What the deliverer's retry rules are. */
export interface RetryPolicy {
  /** The wait before each retry of a message; the endpoint is disabled once they are spent. */
  readonly schedule: readonly number[]
  readonly random?: () => number
  /**
   * An endpoint none of whose attempts has delivered for this long is disabled, however its
   * messages stand in their schedules. Default: the schedule's whole span.
   */
  readonly disableAfterMs?: number
}

/** What an attempt's record did to its endpoint. */
export type Recorded = 'delivered' | 'retry' | 'disabled' | 'forgotten'

/**
 * The deliverer's side of `webhooks.sqlite` (docs/design.md#webhooks): each endpoint's checkpoint
 * and queue, written by the projection that follows the log (`enqueue`) and by the loop that
 * sends (`due`, `record`). One connection, opened by the deliverer; every change is one
 * transaction.
 */
export class Outbox {
  private readonly enqueueInTransaction: (endpoint: Endpoint, events: readonly ProjectionEvent[], through: Position | null, now: number) => AppliedCount
  private readonly recordInTransaction: (endpoint: Endpoint, message: DueMessage, result: SendResult, now: number, retry: RetryPolicy) => Recorded

  constructor(readonly db: Database) {
    this.enqueueInTransaction = db.transaction((endpoint: Endpoint, events: readonly ProjectionEvent[], through: Position | null, now: number) =>
      this.enqueueNow(endpoint, events, through, now))
    this.recordInTransaction = db.transaction((endpoint: Endpoint, message: DueMessage, result: SendResult, now: number, retry: RetryPolicy) =>
      this.recordNow(endpoint, message, result, now, retry))
  }

  get path(): string {
    return this.db.name
  }

  endpoints(): Endpoint[] {
    return statement<[], EndpointRecord>(this.db, 'SELECT * FROM endpoints ORDER BY created_at, rowid').all().map(endpointOf)
  }

  endpoint(id: string): Endpoint | null {
    const record = statement<[string], EndpointRecord>(this.db, 'SELECT * FROM endpoints WHERE id = ?').get(id)
    return record === undefined ? null : endpointOf(record)
  }

  /** The position of the last event the endpoint's queue reflects; null for none. */
  checkpoint(endpointId: string): Position | null {
    const row = statement<[string], { commit_position: string; prepare_position: string }>(this.db,
      'SELECT commit_position, prepare_position FROM checkpoints WHERE endpoint_id = ?').get(endpointId)
    return row === undefined ? null : { commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) }
  }

  /**
   * Queues a message for each of `events` the endpoint wants, after its checkpoint, and moves the
   * checkpoint to `through` (or the last event), in one transaction. An endpoint removed since
   * changes nothing.
   */
  enqueue(endpoint: Endpoint, events: readonly ProjectionEvent[], through: Position | null, now: number): AppliedCount {
    return this.enqueueInTransaction(endpoint, events, through, now)
  }

  /** Messages due by `now`, earliest first, at most `limit`. */
  due(endpointId: string, now: number, limit: number): DueMessage[] {
    return statement<[string, number, number], DueMessage>(this.db, `SELECT seq, event_id AS eventId, webhook_id AS webhookId, stream, revision, attempts
      FROM messages WHERE endpoint_id = ? AND due_at IS NOT NULL AND due_at <= ? ORDER BY due_at, seq LIMIT ?`).all(endpointId, now, limit)
  }

  /** When the next message falls due after `now`; null when none is waiting for a time. */
  nextDueAfter(endpointId: string, now: number): number | null {
    const row = statement<[string, number], { next: number | null }>(this.db,
      'SELECT MIN(due_at) AS next FROM messages WHERE endpoint_id = ? AND due_at > ?').get(endpointId, now)
    return row?.next ?? null
  }

  /** The secrets that sign now: the current one first, then those still in a rotation's grace. */
  secrets(endpointId: string, now: number): string[] {
    return statement<[string, number], { secret: string }>(this.db,
      'SELECT secret FROM secrets WHERE endpoint_id = ? AND (expires_at IS NULL OR expires_at > ?) ORDER BY expires_at IS NOT NULL, id DESC')
      .all(endpointId, now).map((row) => row.secret)
  }

  /**
   * Records an attempt and what follows from it, in one transaction: delivered (the order's next
   * message becomes due), retried by the schedule (and the endpoint held while a 429 or 503 said
   * Retry-After), or the endpoint disabled (410 Gone, the message's schedule spent, or no attempt
   * of the endpoint delivered for `disableAfterMs`). A message removed meanwhile (its endpoint
   * removed) is `forgotten`.
   */
  record(endpoint: Endpoint, message: DueMessage, result: SendResult, now: number, retry: RetryPolicy): Recorded {
    return this.recordInTransaction(endpoint, message, result, now, retry)
  }

  private enqueueNow(endpoint: Endpoint, events: readonly ProjectionEvent[], through: Position | null, now: number): AppliedCount {
    if (statement<[string]>(this.db, 'SELECT 1 FROM endpoints WHERE id = ?').get(endpoint.id) === undefined) return { applied: 0 }
    const stored = this.checkpoint(endpoint.id)
    let last = stored
    let applied = 0
    // Due at once when no earlier message of its order waits (the queue's rule, db/queue.ts),
    // decided in the insert itself: one write per message.
    const insert = statement(this.db, `INSERT INTO messages
      (endpoint_id, event_id, webhook_id, stream, revision, event_type, position, received_at, state, due_at)
      VALUES (@endpoint, @event, @webhook, @stream, @revision, @type, @position, @receivedAt, 'pending',
        CASE WHEN EXISTS (SELECT 1 FROM messages WHERE endpoint_id = @endpoint AND stream = @stream AND state = 'pending') THEN NULL ELSE @now END)`)
    for (const event of events) {
      if (last !== null && comparePositions(event.position, last) <= 0) continue
      last = event.position
      if (categoryOf(event.streamName) !== ORDER_CATEGORY) continue
      const order = parseOrderStreamName(event.streamName)
      if (order === null || !endpointWants(endpoint, order.account, event.type)) continue
      const receivedAt = event.metadata['received_at']
      insert.run({
        endpoint: endpoint.id, event: event.id, webhook: webhookIdFor(endpoint.id, event.id), stream: event.streamName, revision: event.revision,
        type: event.type, position: positionToString(event.position), receivedAt: typeof receivedAt === 'string' ? receivedAt : new Date(now).toISOString(), now,
      })
      applied += 1
    }
    countPending(this.db, endpoint.id, applied)
    const target = through !== null && (last === null || comparePositions(through, last) > 0) ? through : last
    if (target !== null && (stored === null || comparePositions(target, stored) > 0)) {
      statement(this.db, `INSERT INTO checkpoints (endpoint_id, commit_position, prepare_position, updated_at) VALUES (?, ?, ?, ?)
        ON CONFLICT (endpoint_id) DO UPDATE SET commit_position = excluded.commit_position, prepare_position = excluded.prepare_position,
        updated_at = excluded.updated_at`).run(endpoint.id, target.commit.toString(), target.prepare.toString(), new Date(now).toISOString())
    }
    return { applied }
  }

  private recordNow(endpoint: Endpoint, message: DueMessage, result: SendResult, now: number, retry: RetryPolicy): Recorded {
    const at = new Date(now).toISOString()
    const current = statement<[number], { attempts: number; state: string }>(this.db, 'SELECT attempts, state FROM messages WHERE seq = ?').get(message.seq)
    if (current === undefined) return 'forgotten'
    statement(this.db, 'INSERT INTO attempts (endpoint_id, message_seq, at, outcome, status, duration_ms, error) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(endpoint.id, message.seq, at, result.outcome, result.status, result.durationMs, result.error)
    const attempts = current.attempts + 1
    if (result.outcome === 'delivered') {
      statement(this.db, `UPDATE messages SET state = 'delivered', due_at = NULL, delivered_at = ?, attempts = ? WHERE seq = ?`).run(at, attempts, message.seq)
      if (current.state === 'pending') countPending(this.db, endpoint.id, -1)
      statement(this.db, 'UPDATE endpoints SET last_success_at = ?, failing_since = NULL WHERE id = ?').run(at, endpoint.id)
      promoteHead(this.db, endpoint.id, message.stream, now)
      return 'delivered'
    }
    const failingSince = statement<[number, string], { failing_since: number }>(this.db,
      'UPDATE endpoints SET failing_since = COALESCE(failing_since, ?) WHERE id = ? RETURNING failing_since').get(now, endpoint.id)?.failing_since ?? now
    const delay = result.outcome === 'gone' ? null : retryDelay(attempts - 1, retry.schedule, retry.random)
    const waitMs = retryAfterMs(result.retryAfter, now)
    const failingTooLong = now - failingSince >= (retry.disableAfterMs ?? retry.schedule.reduce((sum, wait) => sum + wait, 0))
    if (delay === null || failingTooLong) {
      const reason = result.outcome === 'gone'
        ? `the receiver answered 410 Gone (${message.webhookId}) at ${at}`
        : delay === null
          ? `${attempts} attempts of ${message.webhookId} failed, the last at ${at}: ${result.error ?? result.outcome}`
          : `no attempt has delivered since ${new Date(failingSince).toISOString()} (the whole retry schedule), the last at ${at}: ${result.error ?? result.outcome}`
      // The message stays first in its order's queue, due at once: `enable` resumes with it.
      statement(this.db, 'UPDATE messages SET attempts = 0, due_at = ? WHERE seq = ?').run(now, message.seq)
      statement(this.db, 'UPDATE endpoints SET disabled_at = ?, disabled_reason = ? WHERE id = ? AND disabled_at IS NULL').run(at, reason, endpoint.id)
      return 'disabled'
    }
    // A message a replay has put behind an earlier one of its order (while this attempt was in
    // flight) waits for it, as every later message does.
    const dueAt = isHead(this.db, endpoint.id, message.stream, message.seq) ? now + Math.max(delay, waitMs ?? 0) : null
    statement(this.db, 'UPDATE messages SET attempts = ?, due_at = ? WHERE seq = ?').run(attempts, dueAt, message.seq)
    if (waitMs !== null && (result.status === 429 || result.status === 503)) {
      statement(this.db, 'UPDATE endpoints SET hold_until = MAX(COALESCE(hold_until, 0), ?) WHERE id = ?').run(now + waitMs, endpoint.id)
    }
    return 'retry'
  }
}
