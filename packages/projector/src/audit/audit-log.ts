import Sqlite from 'better-sqlite3'
import type { Statement } from 'better-sqlite3'
import type { Position } from '@waybill/event-store'
import type { Hash } from '@waybill/merkle'
import { GenerationFollower } from '../generation/follower.js'
import { AUDIT_LOG_FILES } from '../generation/pointer.js'
import { createAuditLogSchema, storedVersion } from './audit-log-schema.js'
import { MerkleReader, type StreamLeaf, type TreeLeaf } from './merkle-tables.js'

export interface AuditLogReadOptions {
  /**
   * Whether a missing file is made, with empty tables (a server may start before its projector
   * has made it). False for the audit commands: they change nothing, and refuse a missing file.
   */
  readonly create?: boolean
}

/**
 * Reads the audit log (docs/audit.md#the-audit-log-file), `<data dir>/audit-log.sqlite` or the
 * generation its pointer names after a `waybill audit rebuild`: sizes, roots, inclusion and
 * consistency proofs, an order's leaves. Before every call it looks (one stat) whether the
 * pointer moved and, if so, opens the new file before closing the old one. It trails the log
 * by the audit projection's batch.
 */
export class AuditLog {
  private readonly file: GenerationFollower<OpenAuditLog>

  constructor(dataDir: string, options: AuditLogReadOptions = {}) {
    this.file = new GenerationFollower(dataDir, AUDIT_LOG_FILES, (path) => openAuditLog(path, options.create ?? true))
  }

  /** The file read now. */
  get path(): string {
    this.file.current()
    return this.file.path ?? ''
  }

  /** Leaves in the tree. */
  size(): number {
    return this.tree().size()
  }

  root(size: number): Hash {
    return this.tree().root(size)
  }

  inclusion(index: number, size: number): Hash[] {
    return this.tree().inclusion(index, size)
  }

  consistency(first: number, second: number): Hash[] {
    return this.tree().consistency(first, second)
  }

  /** The hash of leaf `index`; throws a RangeError past the end. */
  leafHash(index: number): Hash {
    return this.tree().hashes.leaf(index)
  }

  /** The leaves of one stream, in revision order (from `fromRevision` to `toRevision` when given). */
  leavesOf(stream: string, fromRevision?: number, toRevision?: number): StreamLeaf[] {
    return this.tree().leavesOf(stream, fromRevision, toRevision)
  }

  /** Leaves from `from` on, in index order (audit verify names the first one that differs). */
  leavesFrom(from: number): IterableIterator<TreeLeaf> {
    return this.tree().leavesFrom(from)
  }

  /** Position of the last event the audit log reflects, or null. */
  checkpoint(): Position | null {
    const row = this.file.current().checkpoint.get()
    return row === undefined ? null : { commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) }
  }

  close(): void {
    this.file.close()
  }

  private tree(): MerkleReader {
    return this.file.current().tree
  }
}

interface OpenAuditLog {
  readonly tree: MerkleReader
  readonly checkpoint: Statement<[], { commit_position: string; prepare_position: string }>
  close(): void
}

function openAuditLog(path: string, create: boolean): OpenAuditLog {
  const db = new Sqlite(path, { fileMustExist: !create })
  try {
    db.pragma('journal_mode = WAL')
    db.pragma('busy_timeout = 5000')
    if (create) createAuditLogSchema(db)
    else if (storedVersion(db) === null) throw new Error(`${path} holds no audit log`)
    return {
      tree: new MerkleReader(db),
      checkpoint: db.prepare('SELECT commit_position, prepare_position FROM checkpoint WHERE one = 1'),
      close: () => db.close(),
    }
  } catch (error) {
    // A refused file is asked about again on the next call: no handle per try.
    db.close()
    throw error
  }
}
