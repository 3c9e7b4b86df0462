import { randomBytes } from 'node:crypto'
import type { Database } from 'better-sqlite3'
import type { OrderEventType } from '@waybill/domain'
import type { Position } from '@waybill/event-store'
import { openWebhookDb } from '../db/open-db.js'
import { countPending, promoteHead } from '../db/queue.js'
import { statement } from '../db/statement.js'
import { newSecret } from '../signing/secret.js'

/** An operator's request names an endpoint that does not exist. */
export class UnknownEndpointError extends Error {
  constructor(readonly endpointId: string) {
    super(`no webhook endpoint ${endpointId} (see waybill webhooks list)`)
    this.name = 'UnknownEndpointError'
  }
}

export interface NewEndpoint {
  /** Checked by `parseEndpointUrl`. */
  readonly url: URL
  readonly account: string | null
  readonly events: readonly OrderEventType[] | null
  /**
   * The head of the log when it is added: its queue starts after it, so an endpoint gets what is
   * accepted from now on, not the whole history (`replay` sends back what it was due).
   */
  readonly head: Position | null
}

/** What `replay` queued again, per endpoint. */
export interface Replayed {
  readonly endpointId: string
  readonly messages: number
}

/**
 * The operator's side of `webhooks.sqlite` (`waybill webhooks`): endpoints added, removed,
 * disabled, enabled, their secrets rotated, ranges replayed. Each change is one transaction,
 * synced (endpoints and secrets are derived from nothing); the deliverer sees it within a second.
 */
export class WebhookAdmin {
  private constructor(private readonly db: Database, private readonly now: () => number) {}

  static open(dataDir: string, now: () => number = Date.now): WebhookAdmin {
    return new WebhookAdmin(openWebhookDb(dataDir, 'operator'), now)
  }

  /** Adds an endpoint with a new secret; the secret is answered here once and shown by nothing else. */
  add(endpoint: NewEndpoint): { readonly id: string; readonly secret: string } {
    const id = `ep_${randomBytes(8).toString('hex')}`
    const secret = newSecret()
    const at = this.iso()
    this.db.transaction(() => {
      statement(this.db, 'INSERT INTO endpoints (id, url, account, events, created_at) VALUES (?, ?, ?, ?, ?)')
        .run(id, endpoint.url.href, endpoint.account, endpoint.events === null ? null : endpoint.events.join(','), at)
      statement(this.db, 'INSERT INTO secrets (endpoint_id, secret, created_at, expires_at) VALUES (?, ?, ?, NULL)').run(id, secret, at)
      if (endpoint.head !== null) {
        statement(this.db, 'INSERT INTO checkpoints (endpoint_id, commit_position, prepare_position, updated_at) VALUES (?, ?, ?, ?)')
          .run(id, endpoint.head.commit.toString(), endpoint.head.prepare.toString(), at)
      }
    })()
    return { id, secret }
  }

  /** Forgets the endpoint, its secrets, its queue and its delivery log. */
  remove(id: string): void {
    this.mustExist(id)
    statement(this.db, 'DELETE FROM endpoints WHERE id = ?').run(id)
  }

  /** Stops deliveries to it; its queue keeps growing, and `enable` resumes where it stopped. */
  disable(id: string, reason = 'disabled by the operator'): void {
    this.mustExist(id)
    statement(this.db, 'UPDATE endpoints SET disabled_at = ?, disabled_reason = ? WHERE id = ?').run(this.iso(), reason, id)
  }

  /** Resumes deliveries: each order's first waiting message is due at once, with a fresh retry schedule. */
  enable(id: string): void {
    this.mustExist(id)
    this.db.transaction(() => {
      statement(this.db, 'UPDATE endpoints SET disabled_at = NULL, disabled_reason = NULL, hold_until = NULL, failing_since = NULL WHERE id = ?').run(id)
      statement(this.db, 'UPDATE messages SET attempts = 0, due_at = ? WHERE endpoint_id = ? AND due_at IS NOT NULL').run(this.now(), id)
    })()
  }

  /**
   * A new secret that signs from now on; the old ones go on signing beside it for `graceMs`
   * (each request then carries both signatures), or stop at once when it is 0. Answers the new one.
   */
  rotateSecret(id: string, graceMs: number): string {
    this.mustExist(id)
    const secret = newSecret()
    const now = this.now()
    this.db.transaction(() => {
      if (graceMs === 0) statement(this.db, 'DELETE FROM secrets WHERE endpoint_id = ?').run(id)
      else {
        statement(this.db, 'UPDATE secrets SET expires_at = ? WHERE endpoint_id = ? AND (expires_at IS NULL OR expires_at > ?)').run(now + graceMs, id, now + graceMs)
        statement(this.db, 'DELETE FROM secrets WHERE endpoint_id = ? AND expires_at <= ?').run(id, now)
      }
      statement(this.db, 'INSERT INTO secrets (endpoint_id, secret, created_at, expires_at) VALUES (?, ?, ?, NULL)').run(id, secret, new Date(now).toISOString())
    })()
    return secret
  }

  /**
   * Queues again, with the same webhook-ids, the messages of events accepted in [since, until) —
   * of one endpoint, or of every one when `id` is null — in log order per order, before the
   * orders' later messages. Messages still waiting are left as they are.
   */
  replay(id: string | null, since: Date, until: Date | null): Replayed[] {
    if (id !== null) this.mustExist(id)
    const ids = id !== null ? [id] : statement<[], { id: string }>(this.db, 'SELECT id FROM endpoints ORDER BY created_at, rowid').all().map((row) => row.id)
    const now = this.now()
    const to = until === null ? '9999-12-31T23:59:59.999Z' : until.toISOString()
    return this.db.transaction(() => ids.map((endpointId): Replayed => {
      const streams = statement<[string, string, string], { stream: string }>(this.db, `UPDATE messages
        SET state = 'pending', due_at = NULL, attempts = 0, delivered_at = NULL
        WHERE endpoint_id = ? AND state = 'delivered' AND received_at >= ? AND received_at < ? RETURNING stream`)
        .all(endpointId, since.toISOString(), to)
      countPending(this.db, endpointId, streams.length)
      for (const stream of new Set(streams.map((row) => row.stream))) {
        // The replayed messages come before the order's later ones: only the first waits for a time.
        statement(this.db, `UPDATE messages SET due_at = NULL WHERE endpoint_id = @endpoint AND stream = @stream AND state = 'pending'
          AND due_at IS NOT NULL AND seq > (SELECT MIN(seq) FROM messages WHERE endpoint_id = @endpoint AND stream = @stream AND state = 'pending')`)
          .run({ endpoint: endpointId, stream })
        promoteHead(this.db, endpointId, stream, now)
      }
      return { endpointId, messages: streams.length }
    }))()
  }

  close(): void {
    this.db.close()
  }

  private mustExist(id: string): void {
    if (statement<[string]>(this.db, 'SELECT 1 FROM endpoints WHERE id = ?').get(id) === undefined) throw new UnknownEndpointError(id)
  }

  private iso(): string {
    return new Date(this.now()).toISOString()
  }
}
