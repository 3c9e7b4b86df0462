import Sqlite from 'better-sqlite3'
import type { Database } from 'better-sqlite3'
import { join } from 'node:path'
import type { SignedTreeHead } from '@waybill/merkle'

/** The heads file, beside the read models and apart from them: a rebuild replaces a read model, never this. */
export const HEADS_FILE = 'audit-heads.sqlite'

/**
 * The signed tree heads this data directory has made (docs/audit.md#signed-tree-heads), kept in a
 * SQLite file of their own so that they outlive every read-model generation: a rebuild checks its
 * new tree against them. Forging one takes the signing key, which is not here.
 */
export class HeadStore {
  private readonly db: Database

  constructor(readonly path: string) {
    this.db = new Sqlite(path)
    this.db.pragma('journal_mode = WAL')
    this.db.pragma('synchronous = FULL')
    this.db.pragma('busy_timeout = 5000')
    this.db.exec(`CREATE TABLE IF NOT EXISTS heads (
      tree_size INTEGER PRIMARY KEY, root_hash TEXT NOT NULL, timestamp TEXT NOT NULL, signature TEXT NOT NULL, key_id TEXT NOT NULL)`)
  }

  static inDataDir(dataDir: string): HeadStore {
    return new HeadStore(join(dataDir, HEADS_FILE))
  }

  /** Keeps a head; a second head of the same size (another projector on the same file) is not kept. */
  add(head: SignedTreeHead): void {
    this.db.prepare('INSERT OR IGNORE INTO heads (tree_size, root_hash, timestamp, signature, key_id) VALUES (?, ?, ?, ?, ?)')
      .run(head.tree_size, head.root_hash, head.timestamp, head.signature, head.key_id)
  }

  latest(): SignedTreeHead | null {
    return this.db.prepare<[], SignedTreeHead>('SELECT * FROM heads ORDER BY tree_size DESC LIMIT 1').get() ?? null
  }

  /** Heads of size above `after` (all when null), ascending, at most `limit`. */
  list(after: number | null, limit: number): SignedTreeHead[] {
    return this.db.prepare<[number, number], SignedTreeHead>('SELECT * FROM heads WHERE tree_size > ? ORDER BY tree_size LIMIT ?')
      .all(after ?? -1, limit)
  }

  /** The head of exactly this size, if one was signed. */
  get(treeSize: number): SignedTreeHead | null {
    return this.db.prepare<[number], SignedTreeHead>('SELECT * FROM heads WHERE tree_size = ?').get(treeSize) ?? null
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

  close(): void {
    if (this.db.open) this.db.close()
  }
}
