import type Database from 'better-sqlite3'
import { canonicalJson } from '@waybill/domain'
import { categoryOf } from '../category.js'
import { hashEvent } from '../hash-chain.js'
import type { RecordedEvent } from '../port.js'

interface StreamHead { revision: number; hash: string }

/**
 * Writes recorded events as they were (`EventStore.importRecorded`), in one transaction on
 * `db`: each at the next position of the log, at the next revision of its stream, chained to the
 * hash before it and hashing to its own hash. The first that does not is a RangeError naming it,
 * and the transaction rolls back: nothing of the call is written.
 */
export function importRecorded(db: Database.Database, events: readonly RecordedEvent[]): void {
  const head = db.prepare<[], { position: number | null }>('SELECT max(position) AS position FROM events')
  const streamHead = db.prepare<[string], StreamHead>('SELECT revision, hash FROM events WHERE stream = ? ORDER BY revision DESC LIMIT 1')
  const insert = db.prepare(`INSERT INTO events (position, stream, category, revision, event_id, type, data, metadata, hash, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
  db.transaction(() => {
    let position = BigInt(head.get()?.position ?? 0)
    for (const event of events) {
      const at = `event ${event.id} (position ${event.position.commit}, stream ${event.streamName} revision ${event.revision})`
      position += 1n
      if (event.position.commit !== position || event.position.prepare !== position) throw new RangeError(`${at}: expected position ${position}`)
      const previous = streamHead.get(event.streamName)
      if (event.revision !== (previous?.revision ?? -1) + 1) throw new RangeError(`${at}: expected revision ${(previous?.revision ?? -1) + 1}`)
      if (event.metadata.prev_hash !== (previous?.hash ?? null)) throw new RangeError(`${at}: prev_hash is not the hash of the event before it`)
      if (hashEvent(event) !== event.hash) throw new RangeError(`${at}: its content does not match its hash`)
      try {
        insert.run(Number(position), event.streamName, categoryOf(event.streamName), event.revision, event.id, event.type,
          canonicalJson(event.data), canonicalJson(event.metadata), event.hash, event.createdAt.getTime())
      } catch (error) {
        if ((error as { code?: unknown }).code === 'SQLITE_CONSTRAINT_UNIQUE') throw new RangeError(`${at}: its id is already in the log`, { cause: error })
        throw error
      }
    }
  }).immediate()
}
