import Database from 'better-sqlite3'
import { openSqliteEventStore, type RecordedEvent, type SqliteEventStore } from '@waybill/event-store'

/** `PRAGMA integrity_check` of a SQLite file, opened read-only: 'ok' when sound. */
export function integrityCheck(path: string): string {
  const db = new Database(path, { readonly: true, fileMustExist: true })
  try {
    return (db.pragma('integrity_check') as Array<{ integrity_check: string }>).map((row) => row.integrity_check).join('; ')
  } finally {
    db.close()
  }
}

/** Every event of the `order` category in log order. */
export async function allOrderEvents(store: SqliteEventStore): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = []
  let after = null
  for (;;) {
    const batch = await store.readAll({ after, maxCount: 5000, categories: ['order'] })
    if (batch.length === 0) return events
    events.push(...batch)
    after = batch[batch.length - 1]!.position
  }
}

export { openSqliteEventStore }
