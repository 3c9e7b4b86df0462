import type { Database, Statement } from 'better-sqlite3'
import {
  CompactRange, consistencyProof, frontierOf, inclusionProof, subtreeRoot, treeRoot, type Hash, type TreeHashes,
} from '@waybill/merkle'

/**
 * Perfect subtrees are kept from this level up (16 leaves and more): one row per 16 leaves
 * instead of one per leaf, and a subtree below it is at most 8 leaf look-ups to recompute.
 * Measured by `pnpm bench:rebuild` (docs/audit.md#the-tree).
 */
const MIN_KEPT_LEVEL = 4

/** One of an order's leaves. */
export interface StreamLeaf {
  readonly leafIndex: number
  readonly revision: number
  readonly hash: Hash
}

/** A leaf with the event it stands for. */
export interface TreeLeaf extends StreamLeaf {
  readonly stream: string
}

/**
 * Reads the tree kept in the audit log's file (`leaves` and `nodes`, audit/audit-log-schema.ts):
 * every root, inclusion proof or consistency proof is O(log² n) look-ups however long the log.
 */
export class MerkleReader {
  private readonly leafStatement: Statement<[number], { hash: Buffer }>
  private readonly nodeStatement: Statement<[number, number], { hash: Buffer }>
  private readonly sizeStatement: Statement<[], { size: number | null }>
  readonly hashes: TreeHashes

  constructor(readonly db: Database) {
    this.leafStatement = db.prepare('SELECT hash FROM leaves WHERE leaf_index = ?')
    this.nodeStatement = db.prepare('SELECT hash FROM nodes WHERE level = ? AND idx = ?')
    this.sizeStatement = db.prepare('SELECT max(leaf_index) + 1 AS size FROM leaves')
    this.hashes = {
      leaf: (index) => {
        const row = this.leafStatement.get(index)
        if (row === undefined) throw new RangeError(`the audit tree has no leaf ${index}`)
        return row.hash
      },
      perfect: (level, index) => level < MIN_KEPT_LEVEL ? undefined : this.nodeStatement.get(level, index)?.hash,
    }
  }

  /** Leaves in the tree. */
  size(): number {
    return this.sizeStatement.get()?.size ?? 0
  }

  root(size: number): Hash {
    return treeRoot(this.hashes, size)
  }

  inclusion(index: number, size: number): Hash[] {
    return inclusionProof(this.hashes, index, size)
  }

  consistency(first: number, second: number): Hash[] {
    return consistencyProof(this.hashes, first, second)
  }

  /** The leaves of one stream, in revision order. */
  leavesOf(stream: string, fromRevision = 0, toRevision = Number.MAX_SAFE_INTEGER): StreamLeaf[] {
    return this.db.prepare<[string, number, number], { leaf_index: number; revision: number; hash: Buffer }>(
      'SELECT leaf_index, revision, hash FROM leaves WHERE stream = ? AND revision BETWEEN ? AND ? ORDER BY revision').all(stream, fromRevision, toRevision)
      .map((row) => ({ leafIndex: row.leaf_index, revision: row.revision, hash: row.hash }))
  }

  /** Leaves from `from` on, in index order, a page at a time (audit verify compares them). */
  *leavesFrom(from: number): IterableIterator<TreeLeaf> {
    const page = this.db.prepare<[number], { leaf_index: number; stream: string; revision: number; hash: Buffer }>(
      'SELECT leaf_index, stream, revision, hash FROM leaves WHERE leaf_index >= ? ORDER BY leaf_index LIMIT 10000')
    for (let next = from; ;) {
      const rows = page.all(next)
      for (const row of rows) yield { leafIndex: row.leaf_index, stream: row.stream, revision: row.revision, hash: row.hash }
      const last = rows.at(-1)
      if (last === undefined) return
      next = last.leaf_index + 1
    }
  }
}

/** Rows a multi-row INSERT of leaves or nodes writes at once. */
const ROWS_PER_INSERT = 128

/**
 * Appends leaves inside the audit log writer's transaction. The frontier is read back from the tables at
 * the start of each batch (at most 64 look-ups), so a rolled-back batch leaves nothing stale in
 * memory. Leaves and nodes are computed in memory and written by `finish()`, 128 rows to an
 * INSERT: one statement per row was a third of a catch-up's CPU.
 */
export class MerkleAppender {
  private readonly reader: MerkleReader
  private readonly leafRows: RowInserter
  private readonly nodeRows: RowInserter
  private range: CompactRange | null = null

  constructor(db: Database) {
    this.reader = new MerkleReader(db)
    this.leafRows = new RowInserter(db, 'leaves (leaf_index, hash, stream, revision)', 4)
    this.nodeRows = new RowInserter(db, 'nodes (level, idx, hash)', 3)
  }

  /** Call at the start of a batch, inside its transaction. */
  begin(): CompactRange {
    const size = this.reader.size()
    const frontier = frontierOf(size).map(({ level, index }) => ({
      level, index,
      hash: level < MIN_KEPT_LEVEL ? subtreeRoot(this.reader.hashes, index * 2 ** level, (index + 1) * 2 ** level) : this.perfectOrThrow(level, index),
    }))
    this.leafRows.clear()
    this.nodeRows.clear()
    this.range = new CompactRange(size, frontier)
    return this.range
  }

  append(hash: Hash, stream: string, revision: number): void {
    const range = this.range ?? this.begin()
    this.leafRows.add(range.size, hash, stream, revision)
    for (const node of range.append(hash)) if (node.level >= MIN_KEPT_LEVEL) this.nodeRows.add(node.level, node.index, node.hash)
  }

  /** Writes what `append` computed; call at the end of a batch, inside its transaction. */
  finish(): void {
    this.leafRows.flush()
    this.nodeRows.flush()
  }

  private perfectOrThrow(level: number, index: number): Hash {
    const hash = this.reader.hashes.perfect?.(level, index)
    if (hash === undefined) throw new Error(`the audit tree lacks its subtree ${level}/${index}: run \`waybill audit rebuild\``)
    return hash
  }
}

/** Rows of one table gathered as flat values, and written `ROWS_PER_INSERT` to a statement. */
class RowInserter {
  private values: unknown[] = []
  private readonly statements = new Map<number, Statement>()

  constructor(private readonly db: Database, private readonly into: string, private readonly columns: number) {}

  add(...row: unknown[]): void {
    for (const value of row) this.values.push(value)
  }

  clear(): void {
    this.values = []
  }

  flush(): void {
    const { values, columns } = this
    const full = ROWS_PER_INSERT * columns
    let at = 0
    for (; at + full <= values.length; at += full) this.statement(ROWS_PER_INSERT).run(values.slice(at, at + full))
    if (at < values.length) this.statement((values.length - at) / columns).run(values.slice(at))
    this.values = []
  }

  private statement(rows: number): Statement {
    let statement = this.statements.get(rows)
    if (statement === undefined) {
      const row = `(${new Array(this.columns).fill('?').join(', ')})`
      statement = this.db.prepare(`INSERT INTO ${this.into} VALUES ${new Array(rows).fill(row).join(', ')}`)
      this.statements.set(rows, statement)
    }
    return statement
  }
}
