import type { Database, Statement } from 'better-sqlite3'
import { openProjectionFile } from '../generation/projection-file.js'
import { parseOrderStreamName } from '@waybill/domain'
import { comparePositions, type Position, type ProjectionEvent } from '@waybill/event-store'
import { evolveOrderRow, type EventOpener } from './fold.js'
import type { OrderRow } from './order-row.js'
import type { ProjectionWriter } from '../runner/projection.js'
import { fromRecord, toRecord } from './row-codec.js'
import { columnValues, createSchema, ORDER_COLUMNS, type OrderRecord } from './sql-schema.js'

export const ORDERS_PROJECTION = 'orders'
const BULK_MEMORY_ROWS = 500_000

export interface BatchOutcome {
  /** Events that changed a row. */
  readonly applied: number
  /** Events at or before the checkpoint, or at or before the row's revision: already in the model. */
  readonly duplicates: number
  /** Events of a type this projection does not know; logged and passed over. */
  readonly unknown: readonly ProjectionEvent[]
}

export interface OpenOptions {
  /** Opens each event's personal part with its order's key (`keyStoreOpener`). */
  readonly open: EventOpener
  /**
   * Rebuild mode, for a new file nobody reads yet: no journal, no fsync, no secondary indexes,
   * and rows kept in memory (the file starts empty, so memory is the whole truth) and written
   * by `flush()` or when more than `BULK_MEMORY_ROWS` pile up. A crash leaves a file the next
   * rebuild throws away, so none of this weakens the live model's guarantees.
   */
  readonly bulk?: boolean
}

/** The write side of the `orders` read model: batches of events in, one transaction each. */
export class ReadModelWriter implements ProjectionWriter<BatchOutcome> {
  readonly db: Database
  private readonly selectRow: Statement<[string, string], OrderRecord>
  private readonly upsertRow: Statement
  private readonly selectCheckpoint: Statement<[string], { commit_position: string; prepare_position: string }>
  private readonly upsertCheckpoint: Statement<[string, string, string, string]>
  private readonly applyInTransaction: (events: readonly ProjectionEvent[], through: Position | null) => BatchOutcome
  private readonly writeRows: (rows: Iterable<OrderRow>) => void
  /** Bulk mode: rows not yet written, and whether the file holds none outside this map. */
  private readonly memory: Map<string, OrderRow | undefined> | null
  private memoryIsComplete = true

  private readonly open: EventOpener
  /** An erasure was applied and the WAL not yet emptied of the pages it scrubbed. */
  private scrubPending = false

  constructor(readonly path: string, options: OpenOptions) {
    this.db = openProjectionFile(path, options.bulk === true, createSchema)
    this.open = options.open
    this.selectRow = this.db.prepare('SELECT * FROM orders WHERE account = ? AND order_id = ?')
    this.upsertRow = this.db.prepare(
      `INSERT OR REPLACE INTO orders (${ORDER_COLUMNS.join(', ')}) VALUES (${ORDER_COLUMNS.map(() => '?').join(', ')})`,
    )
    this.selectCheckpoint = this.db.prepare('SELECT commit_position, prepare_position FROM checkpoints WHERE projection = ?')
    this.upsertCheckpoint = this.db.prepare('INSERT OR REPLACE INTO checkpoints VALUES (?, ?, ?, ?)')
    this.applyInTransaction = this.db.transaction(
      (events: readonly ProjectionEvent[], through: Position | null) => this.applyNow(events, through))
    this.writeRows = this.db.transaction((rows: Iterable<OrderRow>) => {
      for (const row of rows) this.upsertRow.run(columnValues(toRecord(row)))
    })
    this.memory = options.bulk === true ? new Map() : null
  }

  /** Bulk mode: writes the rows held in memory. Nothing to do otherwise. */
  flush(): void {
    if (this.memory === null) return
    // In primary-key order: the WITHOUT ROWID table then grows at its right edge instead of
    // splitting pages all over the B-tree (measured about 2× faster for a 250,000-row flush).
    this.writeRows([...rowsOf(this.memory)].sort(byPrimaryKey))
    this.memory.clear()
    this.memoryIsComplete = false
  }

  /** Position of the last event the model reflects; null when it reflects none. */
  checkpoint(): Position | null {
    const row = this.selectCheckpoint.get(ORDERS_PROJECTION)
    return row === undefined ? null : { commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) }
  }

  /**
   * Applies `events` (global-log order) and moves the checkpoint to `through` (or to the last
   * event) in ONE transaction, so a crash keeps both or neither. Events at or before the stored
   * checkpoint, and events at or before their row's revision, change nothing: a replayed batch
   * or a second projector on the same file cannot apply an event twice.
   */
  applyBatch(events: readonly ProjectionEvent[], through: Position | null = null): BatchOutcome {
    const outcome = this.applyInTransaction(events, through)
    if (this.scrubPending && this.memory === null) this.emptyJournal()
    return outcome
  }

  /**
   * After an erasure: the rows it scrubbed were overwritten in their pages (`secure_delete`), but
   * older copies of those pages may sit in the WAL, so it is checkpointed into the file and
   * truncated. While a reader holds an old snapshot it cannot be; the next batch tries again.
   */
  private emptyJournal(): void {
    const [result] = this.db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>
    this.scrubPending = result?.busy !== 0
  }

  close(): void {
    if (this.db.open) this.db.close()
  }

  private applyNow(events: readonly ProjectionEvent[], through: Position | null): BatchOutcome {
    const stored = this.checkpoint()
    const touched = this.memory ?? new Map<string, OrderRow | undefined>()
    const fileMayHold = this.memory === null || !this.memoryIsComplete
    const unknown: ProjectionEvent[] = []
    let applied = 0
    let duplicates = 0
    let last: Position | null = stored
    for (const event of events) {
      if (last !== null && comparePositions(event.position, last) <= 0) {
        duplicates += 1
        continue
      }
      last = event.position
      // Keyed by stream name (one stream per order): the name is parsed only for a stream not
      // yet seen in this batch (or, in bulk mode, in this rebuild), not for every event.
      const key = event.streamName
      let row = touched.get(key)
      let account: string
      let orderId: string
      if (row !== undefined) {
        account = row.account
        orderId = row.order_id
      } else {
        const name = parseOrderStreamName(key)
        if (name === null) continue
        account = name.account
        orderId = name.orderId
        if (fileMayHold && !touched.has(key)) {
          const record = this.selectRow.get(account, orderId)
          row = record === undefined ? undefined : fromRecord(record)
        }
      }
      if (row !== undefined && row.revision >= event.revision) {
        duplicates += 1
        continue
      }
      const next = evolveOrderRow(row, account, orderId, event, this.open)
      if (next === 'unknown') {
        unknown.push(event)
        continue
      }
      touched.set(key, next)
      if (next !== row) applied += 1
      if (next !== row && next?.erased_at !== null && next?.erased_at !== undefined) this.scrubPending = true
    }
    if (this.memory === null) for (const row of rowsOf(touched)) this.upsertRow.run(columnValues(toRecord(row)))
    else if (this.memory.size > BULK_MEMORY_ROWS) this.flush()
    const target = through !== null && (last === null || comparePositions(through, last) > 0) ? through : last
    if (target !== null && (stored === null || comparePositions(target, stored) > 0)) {
      this.upsertCheckpoint.run(ORDERS_PROJECTION, target.commit.toString(), target.prepare.toString(), new Date().toISOString())
    }
    return { applied, duplicates, unknown }
  }
}

function byPrimaryKey(a: OrderRow, b: OrderRow): number {
  if (a.account !== b.account) return a.account < b.account ? -1 : 1
  return a.order_id < b.order_id ? -1 : a.order_id > b.order_id ? 1 : 0
}

function* rowsOf(map: Map<string, OrderRow | undefined>): IterableIterator<OrderRow> {
  for (const row of map.values()) if (row !== undefined) yield row
}
