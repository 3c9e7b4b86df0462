import type { Database } from 'better-sqlite3'
import type { SealStatement, SignedTreeHead } from '@waybill/merkle'

/** A head signed before a seal, and its consistency proof (hex) to the seal's closing head. */
export interface SealedHead {
  readonly head: SignedTreeHead
  readonly proof: readonly string[]
}

/**
 * A seal of the log as the heads file keeps it (docs/audit.md#sealing): the signed statement, the
 * closing head over the tree it replaced, the new tree's first head, and every head signed before
 * it with its proof to the closing head. `finished_at` is null until the sealed log is in place
 * and both projections are rebuilt over it: `waybill seal` run again finishes such a seal.
 */
export interface SealRecord {
  readonly seal_id: number
  readonly statement: SealStatement
  readonly closing_head: SignedTreeHead
  readonly new_head: SignedTreeHead
  readonly sealed_heads: readonly SealedHead[]
  readonly finished_at: string | null
}

export type NewSeal = Omit<SealRecord, 'seal_id' | 'finished_at' | 'sealed_heads'> & { readonly proofs: ReadonlyMap<number, readonly string[]> }

interface SealRow { seal_id: number; statement: string; closing_head: string; new_head: string; finished_at: string | null }

const HEAD_COLUMNS = 'tree_size, root_hash, timestamp, signature, key_id'

/**
 * Records a seal in one write transaction of the heads file: every head kept so far moves to
 * `sealed_heads` with its proof to the closing head (`proofs`, by tree size), and the new tree's
 * first head becomes the only head of the tree the log now holds.
 */
export function recordSeal(db: Database, seal: NewSeal, addHead: (head: SignedTreeHead) => boolean): SealRecord {
  return db.transaction(() => {
    const id = Number(db.prepare('INSERT INTO seals (statement, closing_head, new_head) VALUES (?, ?, ?)')
      .run(JSON.stringify(seal.statement), JSON.stringify(seal.closing_head), JSON.stringify(seal.new_head)).lastInsertRowid)
    const heads = db.prepare<[], SignedTreeHead>(`SELECT ${HEAD_COLUMNS} FROM heads ORDER BY tree_size, rowid`).all()
    const keep = db.prepare('INSERT INTO sealed_heads (seal_id, tree_size, key_id, head, proof) VALUES (?, ?, ?, ?, ?)')
    for (const head of heads) {
      const proof = seal.proofs.get(head.tree_size)
      if (proof === undefined) throw new Error(`no consistency proof from head ${head.tree_size} to the closing head`)
      keep.run(id, head.tree_size, head.key_id, JSON.stringify(head), JSON.stringify(proof))
    }
    db.prepare('DELETE FROM heads').run()
    if (!addHead(seal.new_head)) throw new Error(`the new tree's head at ${seal.new_head.tree_size} was not kept`)
    return sealsOf(db).find((record) => record.seal_id === id) as SealRecord
  }).immediate()
}

/** Every seal of the log, oldest first, each with the heads it set aside. */
export function sealsOf(db: Database): SealRecord[] {
  const sealed = db.prepare<[number], { head: string; proof: string }>('SELECT head, proof FROM sealed_heads WHERE seal_id = ? ORDER BY tree_size, rowid')
  return db.prepare<[], SealRow>('SELECT * FROM seals ORDER BY seal_id').all().map((row) => ({
    seal_id: row.seal_id,
    statement: JSON.parse(row.statement) as SealStatement,
    closing_head: JSON.parse(row.closing_head) as SignedTreeHead,
    new_head: JSON.parse(row.new_head) as SignedTreeHead,
    sealed_heads: sealed.all(row.seal_id).map((kept) => ({ head: JSON.parse(kept.head) as SignedTreeHead, proof: JSON.parse(kept.proof) as string[] })),
    finished_at: row.finished_at,
  }))
}

/** Marks a seal finished: the sealed log is in place and the projections are rebuilt over it. */
export function finishSeal(db: Database, sealId: number, at: Date): void {
  db.prepare('UPDATE seals SET finished_at = ? WHERE seal_id = ? AND finished_at IS NULL').run(at.toISOString(), sealId)
}
