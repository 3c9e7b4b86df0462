import type { Database } from 'better-sqlite3'
import { parseOrderStreamName, type WireEvent } from '@waybill/domain'
import { backlogOf } from '../db/queue.js'
import { statement } from '../db/statement.js'
import { endpointOf, type EndpointRecord } from '../endpoints/endpoint.js'
import { wireNameOf } from '../endpoints/event-filter.js'
import type { AttemptOutcome } from '../delivery/send.js'

/** An endpoint as `waybill webhooks list` and `GET /v1/webhooks/endpoints` show it: never its secret. */
export interface EndpointSummary {
  readonly id: string
  readonly url: string
  /** The one account it gets events of; null for every account. */
  readonly account: string | null
  /** The wire events it gets; null for every one. */
  readonly events: WireEvent[] | null
  readonly state: 'enabled' | 'disabled'
  readonly disabled_at: string | null
  readonly disabled_reason: string | null
  /** Until when a receiver's Retry-After holds it back; null when it does not. */
  readonly held_until: string | null
  readonly created_at: string
  readonly last_success_at: string | null
  /** Messages not yet delivered. */
  readonly backlog: number
  /** When the oldest of them was accepted; null when there is none. */
  readonly oldest_pending_at: string | null
  /** Secrets that sign now: 2 during a rotation's grace. */
  readonly signing_secrets: number
}

/** Every endpoint, oldest first. */
export function listEndpoints(db: Database, now: number): EndpointSummary[] {
  const records = statement<[], EndpointRecord>(db, 'SELECT * FROM endpoints ORDER BY created_at, rowid').all()
  return records.map((record) => {
    const endpoint = endpointOf(record)
    const backlog = backlogOf(db, endpoint.id)
    const secrets = statement<[string, number], { n: number }>(db,
      'SELECT COUNT(*) AS n FROM secrets WHERE endpoint_id = ? AND (expires_at IS NULL OR expires_at > ?)').get(endpoint.id, now)
    return {
      id: endpoint.id,
      url: endpoint.url,
      account: endpoint.account,
      events: endpoint.events === null ? null : endpoint.events.map(wireNameOf),
      state: endpoint.disabledAt === null ? 'enabled' : 'disabled',
      disabled_at: endpoint.disabledAt,
      disabled_reason: endpoint.disabledReason,
      held_until: endpoint.holdUntil !== null && endpoint.holdUntil > now ? new Date(endpoint.holdUntil).toISOString() : null,
      created_at: endpoint.createdAt,
      last_success_at: endpoint.lastSuccessAt,
      backlog: backlog.pending,
      oldest_pending_at: backlog.oldestReceivedAt,
      signing_secrets: secrets?.n ?? 0,
    }
  })
}

/** One attempt to deliver one message, as the delivery log shows it. */
export interface DeliveryAttempt {
  /** The attempt's number in the log (ascending with time): the cursor of the pages. */
  readonly id: number
  readonly at: string
  readonly endpoint_id: string
  /** The message's `webhook-id`: the same on every attempt and replay of one event to one endpoint. */
  readonly webhook_id: string
  readonly event_id: string
  readonly event_type: string
  readonly account: string
  readonly order_id: string
  readonly revision: number
  readonly outcome: AttemptOutcome
  /** The receiver's HTTP status; null when none came. */
  readonly status: number | null
  readonly duration_ms: number
  /** Why it did not count as delivered; null when it did. */
  readonly error: string | null
}

export interface AttemptQuery {
  /** One endpoint's attempts; every endpoint's when absent. */
  readonly endpointId?: string
  /** Only the attempts that did not deliver. */
  readonly failed?: boolean
  /** Only attempts older than this one (the previous page's `next_cursor`). */
  readonly before?: number
  readonly limit: number
}

interface AttemptParameters {
  readonly endpoint: string | null
  readonly failed: number
  readonly before: number | null
  readonly limit: number
}

/** The delivery log, newest attempt first, a page at a time. */
export function listAttempts(db: Database, query: AttemptQuery): DeliveryAttempt[] {
  const rows = statement<[AttemptParameters], Omit<DeliveryAttempt, 'account' | 'order_id'> & { stream: string }>(db,
    `SELECT a.id, a.at, a.endpoint_id, m.webhook_id, m.event_id, m.event_type, m.stream, m.revision, a.outcome, a.status, a.duration_ms, a.error
      FROM attempts a JOIN messages m ON m.seq = a.message_seq
      WHERE (@endpoint IS NULL OR a.endpoint_id = @endpoint) AND (@failed = 0 OR a.outcome <> 'delivered') AND (@before IS NULL OR a.id < @before)
      ORDER BY a.id DESC LIMIT @limit`).all({ endpoint: query.endpointId ?? null, failed: query.failed === true ? 1 : 0, before: query.before ?? null, limit: query.limit })
  return rows.map(({ stream, ...row }) => {
    const order = parseOrderStreamName(stream)
    return { ...row, account: order?.account ?? '', order_id: order?.orderId ?? '' }
  })
}
