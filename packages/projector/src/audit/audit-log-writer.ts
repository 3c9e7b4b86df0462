import type { Database, Statement } from 'better-sqlite3'
import { openProjectionFile } from '../generation/projection-file.js'
import { ORDER_CATEGORY } from '@waybill/domain'
import { categoryOf, comparePositions, type Position, type ProjectionEvent } from '@waybill/event-store'
import type { AppliedCount, ProjectionWriter } from '../runner/projection.js'
import { createAuditLogSchema } from './audit-log-schema.js'
import { eventLeafHash } from './leaf.js'
import { MerkleAppender, MerkleReader } from './merkle-tables.js'

export interface AuditLogOpenOptions {
  /**
   * Rebuild mode, for a new file nobody reads yet (`waybill audit rebuild`): no journal, no
   * fsync, the stream index made at the end. A crash leaves a file the next rebuild throws away.
   */
  readonly bulk?: boolean
}

/**
 * The write side of the audit log: every order event after the checkpoint becomes the next leaf,
 * in log order, and the checkpoint moves in the same transaction, so a crash keeps both or
 * neither and no leaf is ever added twice.
 *
 * Live, the file is WAL with `synchronous = NORMAL`, as the read model: a power cut may lose the
 * last batches but never tears the file, and whatever it loses is derived from the log, which
 * is durable on its own (FULL), so the projection adds the same leaves again from its
 * checkpoint. The heads, which are not derived from anything, are kept FULL in
 * `audit-heads.sqlite` (HeadStore); a head covering leaves a crash took away is covered again
 * once the projection has re-read them.
 */
export class AuditLogWriter implements ProjectionWriter {
  readonly db: Database
  /** The tree in this file (docs/audit.md#the-tree). */
  readonly tree: MerkleReader
  private readonly appender: MerkleAppender
  private readonly selectCheckpoint: Statement<[], { commit_position: string; prepare_position: string }>
  private readonly upsertCheckpoint: Statement<[string, string, string]>
  private readonly applyInTransaction: (events: readonly ProjectionEvent[], through: Position | null) => AppliedCount

  constructor(readonly path: string, options: AuditLogOpenOptions = {}) {
    this.db = openProjectionFile(path, options.bulk === true, createAuditLogSchema)
    this.tree = new MerkleReader(this.db)
    this.appender = new MerkleAppender(this.db)
    this.selectCheckpoint = this.db.prepare('SELECT commit_position, prepare_position FROM checkpoint WHERE one = 1')
    this.upsertCheckpoint = this.db.prepare('INSERT OR REPLACE INTO checkpoint (one, commit_position, prepare_position, updated_at) VALUES (1, ?, ?, ?)')
    this.applyInTransaction = this.db.transaction((events: readonly ProjectionEvent[], through: Position | null) => this.applyNow(events, through))
  }

  checkpoint(): Position | null {
    const row = this.selectCheckpoint.get()
    return row === undefined ? null : { commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) }
  }

  /** Appends the leaves of `events` after the checkpoint and moves it, in one transaction. */
  applyBatch(events: readonly ProjectionEvent[], through: Position | null = null): AppliedCount {
    return this.applyInTransaction(events, through)
  }

  close(): void {
    if (this.db.open) this.db.close()
  }

  private applyNow(events: readonly ProjectionEvent[], through: Position | null): AppliedCount {
    const stored = this.checkpoint()
    let last = stored
    let applied = 0
    this.appender.begin()
    for (const event of events) {
      if (last !== null && comparePositions(event.position, last) <= 0) continue
      last = event.position
      // The leaves are the order category's events and only those (docs/audit.md#leaves),
      // whatever else a source hands over.
      if (categoryOf(event.streamName) !== ORDER_CATEGORY) continue
      this.appender.append(eventLeafHash(event), event.streamName, event.revision)
      applied += 1
    }
    this.appender.finish()
    const target = through !== null && (last === null || comparePositions(through, last) > 0) ? through : last
    if (target !== null && (stored === null || comparePositions(target, stored) > 0)) {
      this.upsertCheckpoint.run(target.commit.toString(), target.prepare.toString(), new Date().toISOString())
    }
    return { applied }
  }
}
