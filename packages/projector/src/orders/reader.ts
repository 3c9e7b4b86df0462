import Sqlite from 'better-sqlite3'
import type { Database, Statement } from 'better-sqlite3'
import type { OrderStatus } from '@waybill/domain'
import type { OrderRow } from './order-row.js'
import { currentGeneration, generationMarker } from './generation.js'
import { fromRecord } from './row-codec.js'
import { createSchema, type OrderRecord } from './sql-schema.js'
import { MerkleReader } from '../audit/merkle-tables.js'

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
  private db: Database | null = null
  private marker = ''
  private currentPath = ''
  private statements = new Map<string, Statement>()
  private merkle: MerkleReader | null = null

  /**
   * `migrate: false` for audits (`waybill verify`): an older file is refused with a reason
   * instead of migrated, so checking a data dir that older processes still serve changes nothing.
   */
  constructor(private readonly dataDir: string, private readonly options: { readonly migrate?: boolean } = {}) {}

  get path(): string {
    this.refresh()
    return this.currentPath
  }

  getOrder(account: string, orderId: string): OrderRow | null {
    const record = this.statement('SELECT * FROM orders WHERE account = ? AND order_id = ?').get(account, orderId) as
      | OrderRecord
      | undefined
    return record === undefined ? null : fromRecord(record)
  }

  listOrders(account: string, filter: OrderFilter): OrderRow[] {
    const { where, values } = conditions([
      ['account = ?', account],
      ...filterConditions(filter),
      ['order_id > ?', filter.afterOrderId],
    ])
    const sql = `SELECT * FROM orders WHERE ${where.join(' AND ')} ORDER BY order_id LIMIT ?`
    const records = this.statement(sql).all(...values, filter.limit) as OrderRecord[]
    return records.map(fromRecord)
  }

  /**
   * Orders of every account (or of `filter.account`), in (account, order_id) order: an auditor
   * key's list. The primary key (account, order_id) serves the order and the keyset.
   */
  listAllOrders(filter: AuditOrderFilter): OrderRow[] {
    const { where, values } = conditions([['account = ?', filter.account], ...filterConditions(filter)])
    if (filter.after !== undefined) {
      where.push('(account, order_id) > (?, ?)')
      values.push(filter.after.account, filter.after.orderId)
    }
    const sql = `SELECT * FROM orders ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')} `}ORDER BY account, order_id LIMIT ?`
    const records = this.statement(sql).all(...values, filter.limit) as OrderRecord[]
    return records.map(fromRecord)
  }

  /** Every row, in key order; `waybill verify` compares them with a fresh fold. */
  *allOrders(): IterableIterator<OrderRow> {
    for (const record of this.statement('SELECT * FROM orders ORDER BY account, order_id').iterate()) {
      yield fromRecord(record as OrderRecord)
    }
  }

  /** `"<commit>/<prepare>"` of the last event the model reflects, or null. */
  checkpoint(): { commit: bigint; prepare: bigint } | null {
    const row = this.statement('SELECT commit_position, prepare_position FROM checkpoints WHERE projection = ?')
      .get('orders') as { commit_position: string; prepare_position: string } | undefined
    return row === undefined ? null : { commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) }
  }

  /** The audit tree of the live model (docs/audit.md#the-tree). */
  tree(): MerkleReader {
    this.refresh()
    this.merkle ??= new MerkleReader(this.db as Database)
    return this.merkle
  }

  close(): void {
    this.merkle = null
    this.db?.close()
    this.db = null
    this.statements.clear()
  }

  private statement(sql: string): Statement {
    this.refresh()
    let statement = this.statements.get(sql)
    if (statement === undefined) {
      statement = (this.db as Database).prepare(sql)
      this.statements.set(sql, statement)
    }
    return statement
  }

  private refresh(): void {
    if (this.db !== null && generationMarker(this.dataDir) === this.marker) return
    const generation = currentGeneration(this.dataDir)
    if (this.db !== null && generation.path === this.currentPath) {
      this.marker = generation.marker
      return
    }
    const next = new Sqlite(generation.path)
    next.pragma('journal_mode = WAL')
    next.pragma('busy_timeout = 5000')
    try {
      // A server may start before its projector has made the file: give it the empty tables.
      // An older file is migrated here if the projector has not done it yet.
      createSchema(next, true, this.options.migrate ?? true)
    } catch (error) {
      // A refused file (newer schema) is asked about again on the next query: no handle per try.
      next.close()
      throw error
    }
    const previous = this.db
    this.db = next
    this.statements = new Map()
    this.merkle = null
    this.marker = generation.marker
    this.currentPath = generation.path
    previous?.close()
  }
}

/** The read API's filters as SQL conditions, each with its value (undefined: not filtered on). */
function filterConditions(filter: ListFilters): Array<[string, string | undefined]> {
  return [
    ['status = ?', filter.status],
    ['customer = ?', filter.customer],
    ['location = ?', filter.location],
    ['updated_at_key >= ?', filter.updatedSince],
  ]
}

/** The conditions whose value is given, ANDed by the caller, and their values in order. */
function conditions(pairs: ReadonlyArray<readonly [string, string | undefined]>): { where: string[]; values: string[] } {
  const given = pairs.filter((pair): pair is readonly [string, string] => pair[1] !== undefined)
  return { where: given.map(([clause]) => clause), values: given.map(([, value]) => value) }
}
