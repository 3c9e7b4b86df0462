import type Database from 'better-sqlite3'
import { canonicalJson } from '@waybill/domain'
import { categoryOf } from '../category.js'
import { chainedMetadata, hashEvent } from '../hash-chain.js'
import { expectedRevisionHolds, reappendRevision } from '../append-rules.js'
import type { ExpectedRevision } from '../port.js'
import type { AppendFailure, AppendOutcome, AppendRequest } from './append-request.js'
import { isStorageFailure } from './storage-error.js'

interface HeadRow { revision: number; hash: string }
interface PlaceRow { stream: string; revision: number; position: number }
interface IdRow { event_id: string; revision: number; position: number }

/**
 * Writes a batch of appends in ONE `BEGIN IMMEDIATE` transaction (one fsync), each inside its
 * own savepoint so that a conflict fails that append only. Runs wherever the write connection
 * lives (the writer worker, or the main thread for the inline writer); it is synchronous.
 */
export class BatchCommitter {
  readonly #db: Database.Database
  readonly #head: Database.Statement<[string], HeadRow>
  readonly #byId: Database.Statement<[string], PlaceRow>
  readonly #range: Database.Statement<[string, number, number], IdRow>
  readonly #insert: Database.Statement
  // Prepared once: exec() would parse these texts again for every append of every batch.
  readonly #savepoint: Database.Statement<[]>
  readonly #release: Database.Statement<[]>
  readonly #rollbackTo: Database.Statement<[]>

  constructor(db: Database.Database) {
    this.#db = db
    this.#head = db.prepare('SELECT revision, hash FROM events WHERE stream = ? ORDER BY revision DESC LIMIT 1')
    this.#byId = db.prepare('SELECT stream, revision, position FROM events WHERE event_id = ?')
    this.#range = db.prepare(
      'SELECT event_id, revision, position FROM events WHERE stream = ? AND revision >= ? ORDER BY revision LIMIT ?')
    this.#insert = db.prepare(`INSERT INTO events
      (stream, category, revision, event_id, type, data, metadata, hash, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
    this.#savepoint = db.prepare('SAVEPOINT append')
    this.#release = db.prepare('RELEASE append')
    this.#rollbackTo = db.prepare('ROLLBACK TO append')
  }

  /** One outcome per request, in order. Nothing in it is `ok` unless the transaction committed. */
  commit(requests: readonly AppendRequest[]): AppendOutcome[] {
    try {
      this.#db.exec('BEGIN IMMEDIATE')
    } catch (error) {
      return requests.map(() => failed(error))
    }
    try {
      const now = Date.now()
      const outcomes = requests.map((request) => this.#appendInSavepoint(request, now))
      this.#db.exec('COMMIT')
      return outcomes
    } catch (error) {
      // A storage failure (or a failed COMMIT) may leave the transaction open or roll it back
      // itself; either way nothing of this batch is on disk and every append in it fails.
      rollbackQuietly(this.#db)
      return requests.map(() => failed(error))
    }
  }

  #appendInSavepoint(request: AppendRequest, now: number): AppendOutcome {
    this.#savepoint.run()
    try {
      const outcome = this.#append(request, now)
      this.#release.run()
      return outcome
    } catch (error) {
      if (isStorageFailure(error)) throw error
      this.#rollbackTo.run()
      this.#release.run()
      return failed(error)
    }
  }

  #append({ streamName, events, expectedRevision }: AppendRequest, now: number): AppendOutcome {
    const head = this.#head.get(streamName)
    const current = head?.revision ?? -1
    const conflict = (): AppendOutcome =>
      ({ ok: false, failure: { kind: 'wrong_expected_version', actual: current < 0 ? 'no_stream' : current } })

    const first = this.#byId.get(events[0].id)
    if (first !== undefined) return this.#reappend(streamName, events.map((e) => e.id), expectedRevision, first) ?? conflict()
    if (events.slice(1).some((event) => this.#byId.get(event.id) !== undefined)) return conflict()
    if (!expectedRevisionHolds(expectedRevision, current)) return conflict()

    let previousHash = head?.hash ?? null
    let revision = current
    let position = 0n
    for (const event of events) {
      revision += 1
      const metadata = chainedMetadata(event.metadata, previousHash)
      const hash = hashEvent({ streamName, revision, id: event.id, type: event.type, data: event.data, metadata })
      const info = this.#insert.run(streamName, categoryOf(streamName), revision, event.id, event.type,
        canonicalJson(event.data), canonicalJson(metadata), hash, now)
      position = BigInt(info.lastInsertRowid)
      previousHash = hash
    }
    return { ok: true, result: { nextExpectedRevision: revision, position: { commit: position, prepare: position } } }
  }

  /**
   * The first id is already stored. It is an idempotent re-append (EventStoreDB's rule) when all
   * the ids stand in this stream, consecutively, where the expected revision puts them (anywhere
   * for `any` / `stream_exists`): answer as the first append did. Otherwise undefined: a conflict.
   */
  #reappend(streamName: string, ids: readonly string[], expected: ExpectedRevision, first: PlaceRow): AppendOutcome | undefined {
    if (first.stream !== streamName) return undefined
    if (first.revision !== reappendRevision(expected, first.revision)) return undefined
    const rows = this.#range.all(streamName, first.revision, ids.length)
    if (rows.length !== ids.length || rows.some((row, i) => row.event_id !== ids[i])) return undefined
    const last = rows.at(-1)
    if (last === undefined) return undefined
    const position = BigInt(last.position)
    return { ok: true, result: { nextExpectedRevision: last.revision, position: { commit: position, prepare: position } } }
  }
}

function rollbackQuietly(db: Database.Database): void {
  try {
    if (db.inTransaction) db.exec('ROLLBACK')
  } catch {
    // The connection already dropped the transaction (SQLite does so on some I/O errors).
  }
}

function failed(error: unknown): AppendOutcome {
  const message = error instanceof Error ? error.message : String(error)
  const code = (error as { code?: unknown } | null)?.code
  const failure: AppendFailure = isStorageFailure(error)
    ? { kind: 'unavailable', message: `sqlite: ${String(code)}: ${message}` }
    : { kind: 'failed', message }
  return { ok: false, failure }
}
