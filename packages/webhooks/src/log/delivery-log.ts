import type { Database } from 'better-sqlite3'
import { openWebhookDbForReading } from '../db/open-db.js'
import { listAttempts, listEndpoints, type AttemptQuery, type DeliveryAttempt, type EndpointSummary } from './listings.js'

/**
 * The endpoints and the delivery log, read-only, for the read routes and `waybill webhooks list`
 * and `deliveries`: it never creates `webhooks.sqlite`, and answers empty lists until the file
 * exists (opened on the first read that finds it).
 */
export class DeliveryLog {
  private db: Database | null = null

  constructor(private readonly dataDir: string, private readonly now: () => number = Date.now) {}

  endpoints(): EndpointSummary[] {
    const db = this.open()
    return db === null ? [] : listEndpoints(db, this.now())
  }

  /** One endpoint; null when there is none of that id. */
  endpoint(id: string): EndpointSummary | null {
    return this.endpoints().find((endpoint) => endpoint.id === id) ?? null
  }

  attempts(query: AttemptQuery): DeliveryAttempt[] {
    const db = this.open()
    return db === null ? [] : listAttempts(db, query)
  }

  close(): void {
    this.db?.close()
    this.db = null
  }

  private open(): Database | null {
    this.db ??= openWebhookDbForReading(this.dataDir)
    return this.db
  }
}
