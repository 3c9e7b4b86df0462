import Sqlite from 'better-sqlite3'
import type { Database, Statement } from 'better-sqlite3'
import type { KeyObject } from 'node:crypto'
import { join } from 'node:path'
import { keyIdOf, rawPublicKey, type KeyStatement, type SignedTreeHead } from '@waybill/merkle'
import { ensureHeadStoreSchema } from './head-store-schema.js'
import { finishSeal, recordSeal, sealsOf, type NewSeal, type SealRecord } from './seal-records.js'

/** The heads file, beside the read models and apart from them: a rebuild replaces a read model, never this. */
export const HEADS_FILE = 'audit-heads.sqlite'

/** A key of the log's key set as the heads file keeps it (docs/audit.md#key-lifecycle). */
export interface AuditKeyRecord {
  readonly key_id: string
  /** Base64 of the raw 32-byte Ed25519 public key. */
  readonly public_key: string
  /** When it was recorded. */
  readonly added_at: string
  /** When a key statement retired it; null for the current key. */
  readonly retired_at: string | null
  /** The statement by which it took over from the key before it; null for the log's first key. */
  readonly replaces: KeyStatement | null
}

/** What a key change is given, read inside its write transaction: the key it retires, the latest head, the time. */
export interface KeyChangeState {
  readonly current: AuditKeyRecord
  readonly latest: SignedTreeHead | null
  readonly now: Date
}

/** What a key change records: the statement, and the new key's first head (none before the first head). */
export interface KeyChangeRecord {
  readonly statement: KeyStatement
  readonly head: SignedTreeHead | null
}

interface KeyRow { key_id: string; public_key: string; added_at: string; retired_at: string | null; replaces: string | null }

const HEAD_COLUMNS = 'tree_size, root_hash, timestamp, signature, key_id'

/**
 * The signed tree heads this data directory has made (docs/audit.md#signed-tree-heads), and the
 * public keys that verify them (docs/audit.md#key-lifecycle), kept in a SQLite file of their own
 * so that they outlive every read-model generation and travel in every backup: any process can
 * serve the keys without the key directory. Forging a head takes a private key, which is not here.
 */
export class HeadStore {
  private readonly db: Database
  private latestStatement: Statement<[], SignedTreeHead> | undefined

  constructor(readonly path: string) {
    this.db = new Sqlite(path)
    try {
      this.db.pragma('journal_mode = WAL')
      this.db.pragma('synchronous = FULL')
      this.db.pragma('busy_timeout = 5000')
      ensureHeadStoreSchema(this.db)
    } catch (error) {
      this.db.close()
      throw error
    }
  }

  static inDataDir(dataDir: string): HeadStore {
    return new HeadStore(join(dataDir, HEADS_FILE))
  }

  /**
   * Keeps a head when the key that signed it is the current one (or no key is recorded yet), in
   * one statement: a projector that signed just before `waybill audit rotate-key` retired its key
   * cannot slip a head in after the rotation. False when it was not kept (a retired key, or a
   * head of that size and key already kept by another projector on the same file).
   */
  add(head: SignedTreeHead): boolean {
    return this.db.prepare(`INSERT OR IGNORE INTO heads (${HEAD_COLUMNS}) SELECT ?, ?, ?, ?, ?
      WHERE NOT EXISTS (SELECT 1 FROM keys) OR EXISTS (SELECT 1 FROM keys WHERE key_id = ? AND retired_at IS NULL)`)
      .run(head.tree_size, head.root_hash, head.timestamp, head.signature, head.key_id, head.key_id).changes === 1
  }

  /** `add` for several heads in one transaction, so one fsync: whether each was kept. */
  addAll(heads: readonly SignedTreeHead[]): boolean[] {
    return this.db.transaction(() => heads.map((head) => this.add(head))).immediate()
  }

  /**
   * The latest head: of the largest tree size, and at a rotation's size the new key's. Asked by
   * every proof and head request: the largest size is one seek at the end of the primary key's
   * index and its heads (one, two at a rotation) are sorted alone. Sorting every head by size and
   * rowid read them all, 2 ms a request with the 10,000 heads of 10,000,000 events.
   */
  latest(): SignedTreeHead | null {
    this.latestStatement ??= this.db.prepare<[], SignedTreeHead>(
      `SELECT ${HEAD_COLUMNS} FROM heads WHERE tree_size = (SELECT max(tree_size) FROM heads) ORDER BY rowid DESC LIMIT 1`)
    return this.latestStatement.get() ?? null
  }

  /**
   * Heads of size above `after` (all when null), ascending, of at most `limit` tree sizes: a
   * rotation's size has a head of each key, and a page never splits them.
   */
  list(after: number | null, limit: number): SignedTreeHead[] {
    return this.db.prepare<[number, number], SignedTreeHead>(`SELECT ${HEAD_COLUMNS} FROM heads WHERE tree_size IN
      (SELECT DISTINCT tree_size FROM heads WHERE tree_size > ? ORDER BY tree_size LIMIT ?) ORDER BY tree_size, rowid`).all(after ?? -1, limit)
  }

  /** The head of exactly this size (the current key's, at a rotation's size), if one was signed. */
  get(treeSize: number): SignedTreeHead | null {
    return this.db.prepare<[number], SignedTreeHead>(`SELECT ${HEAD_COLUMNS} FROM heads WHERE tree_size = ? ORDER BY rowid DESC LIMIT 1`).get(treeSize) ?? null
  }

  /** Every head, ascending. */
  *all(): IterableIterator<SignedTreeHead> {
    for (let after: number | null = null; ;) {
      const page = this.list(after, 1000)
      yield* page
      const last = page.at(-1)
      if (last === undefined) return
      after = last.tree_size
    }
  }

  /** The key set, in the order the keys were recorded. */
  keys(): AuditKeyRecord[] {
    return this.db.prepare<[], KeyRow>('SELECT * FROM keys ORDER BY rowid').all().map(toRecord)
  }

  /** The key heads are signed with now, or null before the first. */
  currentKey(): AuditKeyRecord | null {
    const row = this.db.prepare<[], KeyRow>('SELECT * FROM keys WHERE retired_at IS NULL ORDER BY rowid DESC LIMIT 1').get()
    return row === undefined ? null : toRecord(row)
  }

  /**
   * Records `publicKey` as the log's first key when the set is empty (a first start, or a data
   * directory from before the key set), and answers the current key: this one, or the one another
   * process recorded first.
   */
  recordFirstKey(publicKey: KeyObject, at: Date): AuditKeyRecord {
    this.db.prepare('INSERT INTO keys (key_id, public_key, added_at) SELECT ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM keys)')
      .run(keyIdOf(publicKey), rawPublicKey(publicKey).toString('base64'), at.toISOString())
    const current = this.currentKey()
    if (current === null) throw new Error(`${this.path} holds keys but no current one`)
    return current
  }

  /**
   * A key change (`waybill audit rotate-key`): in one write transaction, `make` is given the
   * current key, the latest head and the time, all read under the lock (so no head of the old
   * key can follow the change), and answers the statement and the new key's first head; the new
   * key is recorded as current, the old one retired at the statement's time, the head kept.
   */
  changeKey(make: (state: KeyChangeState) => KeyChangeRecord): KeyChangeRecord {
    return this.db.transaction(() => {
      const current = this.currentKey()
      if (current === null) throw new Error(`no key is recorded in ${this.path} yet: there is nothing to rotate`)
      const record = make({ current, latest: this.latest(), now: new Date() })
      const { statement, head } = record
      if (statement.old_key_id !== current.key_id) throw new Error(`the statement retires key ${statement.old_key_id}, not the current ${current.key_id}`)
      this.db.prepare('UPDATE keys SET retired_at = ? WHERE key_id = ?').run(statement.timestamp, current.key_id)
      this.db.prepare('INSERT INTO keys (key_id, public_key, added_at, replaces) VALUES (?, ?, ?, ?)')
        .run(statement.new_key_id, statement.new_public_key, statement.timestamp, JSON.stringify(statement))
      if (head !== null && !this.add(head)) throw new Error(`the new key's head at ${head.tree_size} was not kept`)
      return record
    }).immediate()
  }

  /**
   * Forgets what lies past the end of a log restored to an earlier point (`waybill restore
   * --to-time|--to-position`): the heads of a larger tree size, and the key changes made at a
   * larger size, newest first, each making the key before it current again. Answers what it
   * forgot. Only for a restored copy that no projector uses yet.
   */
  forgetAfter(treeSize: number): { readonly heads: SignedTreeHead[]; readonly keys: AuditKeyRecord[] } {
    return this.db.transaction(() => {
      const heads = this.db.prepare<[number], SignedTreeHead>(`SELECT ${HEAD_COLUMNS} FROM heads WHERE tree_size > ? ORDER BY tree_size, rowid`).all(treeSize)
      this.db.prepare('DELETE FROM heads WHERE tree_size > ?').run(treeSize)
      const keys: AuditKeyRecord[] = []
      for (let current = this.currentKey(); current !== null && current.replaces !== null && current.replaces.tree_size > treeSize; current = this.currentKey()) {
        this.db.prepare('DELETE FROM keys WHERE key_id = ?').run(current.key_id)
        this.db.prepare('UPDATE keys SET retired_at = NULL WHERE key_id = ?').run(current.replaces.old_key_id)
        keys.push(current)
      }
      return { heads, keys }
    }).immediate()
  }

  /** Records a seal of the log (docs/audit.md#sealing): the heads kept so far set aside with their proofs, the new tree's head kept. */
  recordSeal(seal: NewSeal): SealRecord {
    return recordSeal(this.db, seal, (head) => this.add(head))
  }

  /** Every seal of the log, oldest first. */
  seals(): SealRecord[] {
    return sealsOf(this.db)
  }

  /** Marks a seal finished. */
  finishSeal(sealId: number, at: Date = new Date()): void {
    finishSeal(this.db, sealId, at)
  }

  /** A consistent copy of the file at `path`, taken with SQLite's online backup API while others write. */
  async backupTo(path: string): Promise<void> {
    await this.db.backup(path)
  }

  close(): void {
    if (this.db.open) this.db.close()
  }
}

function toRecord(row: KeyRow): AuditKeyRecord {
  return {
    key_id: row.key_id, public_key: row.public_key, added_at: row.added_at, retired_at: row.retired_at,
    replaces: row.replaces === null ? null : JSON.parse(row.replaces) as KeyStatement,
  }
}
