import Sqlite from 'better-sqlite3'
import type { Database, Statement } from 'better-sqlite3'
import type { OrderStatus } from '@waybill/domain'
import type { OrderRow } from './order-row.js'
import type { Position } from '@waybill/event-store'
import { timestampKey } from './timestamp-key.js'
import { GenerationFollower } from '../generation/follower.js'
import { READ_MODEL_FILES } from '../generation/pointer.js'
import { filterConditions, listQuery } from './list-query.js'
import { fromRecord } from './row-codec.js'
import { createSchema, type OrderRecord } from './sql-schema.js'

/** The filters of the list, which select the orders; a cursor is bound to them. */
export interface ListFilters {
  readonly status?: OrderStatus
  readonly customer?: string
  readonly location?: string
  /** A `timestampKey`; orders whose last event is dated at or after it. */
  readonly updatedSince?: string
}

export interface OrderFilter extends ListFilters {
  /** Return orders whose order_id sorts after this one (the keyset cursor). */
  readonly afterOrderId?: string
  readonly limit: number
}

/** Where the auditor's list stands: it pages on (account, order_id), since order_ids repeat across accounts. */
export interface AuditPosition {
  readonly account: string
  readonly orderId: string
}

export interface AuditOrderFilter extends ListFilters {
  /** Only this account's orders; every account's when absent. */
  readonly account?: string
  /** Return orders that sort after this one in (account, order_id) order (the keyset cursor). */
  readonly after?: AuditPosition
  readonly limit: number
}

/**
 * The query side of the `orders` read model. Before every query it looks (one stat) whether a
 * rebuild swapped the generation pointer, and if so opens the new file before closing the old
 * one, so a query during a swap is answered by one complete model or the other, never by none.
 * The model lags the event log by the projector's batch: reads are eventually consistent.
 */
export class ReadModel {
  private readonly file: GenerationFollower<OpenModel>

  /**
   * `migrate: false` for audits (`waybill verify`): an older file is refused with a reason
   * instead of migrated, so checking a data dir that older processes still serve changes nothing.
   */
  constructor(dataDir: string, options: { readonly migrate?: boolean } = {}) {
    this.file = new GenerationFollower(dataDir, READ_MODEL_FILES, (path) => openModel(path, options.migrate ?? true))
  }

  get path(): string {
    this.file.current()
    return this.file.path ?? ''
  }

  getOrder(account: string, orderId: string): OrderRow | null {
    const record = this.statement('SELECT * FROM orders WHERE account = ? AND order_id = ?').get(account, orderId) as
      | OrderRecord
      | undefined
    return record === undefined ? null : fromRecord(record)
  }

  /** A page of one account's orders, in order_id order (`listQuery`: each filter's page read from its index). */
  listOrders(account: string, filter: OrderFilter): OrderRow[] {
    const { sql, values } = listQuery(account, filter)
    const records = this.statement(sql).all(...values) as OrderRecord[]
    return records.map(fromRecord)
  }

  /**
   * Orders of every account (or of `filter.account`), in (account, order_id) order: an auditor
   * key's list. The primary key (account, order_id) serves the order and the keyset. Narrowed to
   * one account (its cursor in that account), it is that account's list, each filter read from
   * its index (`listQuery`).
   */
  listAllOrders(filter: AuditOrderFilter): OrderRow[] {
    const { account, after, ...filters } = filter
    if (account !== undefined && (after === undefined || after.account === account)) {
      return this.listOrders(account, { ...filters, ...(after === undefined ? {} : { afterOrderId: after.orderId }) })
    }
    const { where, values } = conditions([['account = ?', filter.account], ...filterConditions(filter)])
    if (filter.after !== undefined) {
      where.push('(account, order_id) > (?, ?)')
      values.push(filter.after.account, filter.after.orderId)
    }
    const sql = `SELECT * FROM orders ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')} `}ORDER BY account, order_id LIMIT ?`
    const records = this.statement(sql).all(...values, filter.limit) as OrderRecord[]
    return records.map(fromRecord)
  }

  /**
   * Orders of every account completed or canceled (by their closing event's date) before
   * `cutoff` whose personal data is not erased yet, at most `limit`: what retention erases next.
   */
  closedBefore(cutoff: string, limit: number): Array<{ readonly account: string; readonly orderId: string }> {
    const rows = this.statement(`SELECT account, order_id FROM orders WHERE status IN ('completed', 'canceled') AND erased_at IS NULL
      AND updated_at_key < ? ORDER BY updated_at_key LIMIT ?`).all(timestampKey(cutoff), limit) as Array<{ account: string; order_id: string }>
    return rows.map((row) => ({ account: row.account, orderId: row.order_id }))
  }

  /** Every row, in key order; `waybill verify` compares them with a fresh fold. */
  *allOrders(): IterableIterator<OrderRow> {
    for (const record of this.statement('SELECT * FROM orders ORDER BY account, order_id').iterate()) {
      yield fromRecord(record as OrderRecord)
    }
  }

  /** Position of the last event the model reflects, or null. */
  checkpoint(): Position | null {
    const row = this.statement('SELECT commit_position, prepare_position FROM checkpoints WHERE projection = ?')
      .get('orders') as { commit_position: string; prepare_position: string } | undefined
    return row === undefined ? null : { commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) }
  }

  close(): void {
    this.file.close()
  }

  private statement(sql: string): Statement {
    const model = this.file.current()
    let statement = model.statements.get(sql)
    if (statement === undefined) {
      statement = model.db.prepare(sql)
      model.statements.set(sql, statement)
    }
    return statement
  }
}

/** One generation's file, open for queries, with the statements prepared on it. */
interface OpenModel {
  readonly db: Database
  readonly statements: Map<string, Statement>
  close(): void
}

function openModel(path: string, migrate: boolean): OpenModel {
  const db = new Sqlite(path)
  db.pragma('journal_mode = WAL')
  db.pragma('busy_timeout = 5000')
  try {
    // A server may start before its projector has made the file: give it the empty tables.
    // An older file is migrated here if the projector has not done it yet.
    createSchema(db, true, migrate)
  } catch (error) {
    // A refused file (newer schema) is asked about again on the next query: no handle per try.
    db.close()
    throw error
  }
  return { db, statements: new Map(), close: () => db.close() }
}

/** The conditions whose value is given, ANDed by the caller, and their values in order. */
function conditions(pairs: ReadonlyArray<readonly [string, string | undefined]>): { where: string[]; values: string[] } {
  const given = pairs.filter((pair): pair is readonly [string, string] => pair[1] !== undefined)
  return { where: given.map(([clause]) => clause), values: given.map(([, value]) => value) }
}
