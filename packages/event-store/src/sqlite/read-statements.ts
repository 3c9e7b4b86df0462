import type Database from 'better-sqlite3'
import type { Position, RecordedEvent } from '../port.js'

interface EventRow {
  position: number
  stream: string
  revision: number
  event_id: string
  type: string
  data: string
  metadata: string
  hash: string
  created_at: number
}

const COLUMNS = 'position, stream, revision, event_id, type, data, metadata, hash, created_at'

/** The main thread's queries, on its own connection: WAL lets them run beside the writer. */
export class ReadStatements {
  readonly #stream: Database.Statement<[string, number, number], EventRow>
  /** The whole stream from a revision: without `LIMIT ?` (bound to -1) it runs about 3× faster. */
  readonly #streamFrom: Database.Statement<[string, number], EventRow>
  readonly #all: Database.Statement<[number, number], EventRow>
  readonly #allInCategories: Database.Statement<[number, string, number], EventRow>
  readonly #head: Database.Statement<[], { position: number | null }>

  constructor(db: Database.Database) {
    this.#stream = db.prepare(
      `SELECT ${COLUMNS} FROM events WHERE stream = ? AND revision >= ? ORDER BY revision LIMIT ?`)
    this.#streamFrom = db.prepare(
      `SELECT ${COLUMNS} FROM events WHERE stream = ? AND revision >= ? ORDER BY revision`)
    this.#all = db.prepare(`SELECT ${COLUMNS} FROM events WHERE position > ? ORDER BY position LIMIT ?`)
    this.#allInCategories = db.prepare(`SELECT ${COLUMNS} FROM events
      WHERE position > ? AND category IN (SELECT value FROM json_each(?)) ORDER BY position LIMIT ?`)
    this.#head = db.prepare('SELECT max(position) AS position FROM events')
  }

  stream(streamName: string, fromRevision: number, maxCount: number): RecordedEvent[] {
    // readStream runs twice per request (API key, order), and maxCount is nearly always -1:
    // measured with better-sqlite3, 6.6 µs per call instead of 18.5 µs with the LIMIT bound.
    const rows = maxCount < 0 ? this.#streamFrom.all(streamName, fromRevision) : this.#stream.all(streamName, fromRevision, maxCount)
    return rows.map(toRecordedEvent)
  }

  all(after: bigint, maxCount: number, categories: readonly string[] | undefined): RecordedEvent[] {
    const rows = categories === undefined
      ? this.#all.all(Number(after), maxCount)
      : this.#allInCategories.all(Number(after), JSON.stringify(categories), maxCount)
    return rows.map(toRecordedEvent)
  }

  head(): Position | null {
    const { position } = this.#head.get()!
    return position === null ? null : { commit: BigInt(position), prepare: BigInt(position) }
  }
}

function toRecordedEvent(row: EventRow): RecordedEvent {
  const position = BigInt(row.position)
  return {
    streamName: row.stream,
    id: row.event_id,
    type: row.type,
    data: JSON.parse(row.data) as Record<string, unknown>,
    metadata: JSON.parse(row.metadata) as RecordedEvent['metadata'],
    revision: row.revision,
    position: { commit: position, prepare: position },
    hash: row.hash,
    createdAt: new Date(row.created_at),
  }
}
