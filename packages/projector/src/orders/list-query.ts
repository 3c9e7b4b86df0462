import type { ListFilters, OrderFilter } from './reader.js'

/** A query and its values, in the order of its placeholders. */
export interface ListQuery {
  readonly sql: string
  readonly values: ReadonlyArray<string | number>
}

/**
 * The query of one page of an account's orders (GET /v1/orders), in order_id order, after the
 * cursor's order_id. With a status, customer or location it names that filter's index, whose
 * keys end in order_id: the page is then a range of the index in list order, a few dozen rows
 * read however many orders the account holds. Left to choose without statistics, SQLite walks
 * the account's orders by primary key and filters them, so a customer's few orders cost a read
 * of every order of the account. Of two filters the likelier to be narrow names the index
 * (customer, then location, then status); the others are checked on the rows it yields.
 * `updated_since` alone reads its index (account, updated_at_key), which holds each order's id
 * (the primary key is in every index of a table without rowid): the ids of the orders changed
 * since then are sorted and the page's are taken from that index alone, then only the page's rows
 * are read, instead of every changed order's row, each a search of a table that grows with the
 * log, for a sort that keeps a page of them.
 */
export function listQuery(account: string, filter: OrderFilter): ListQuery {
  const pairs: Array<readonly [string, string | undefined]> = [
    ['account = ?', account],
    ...filterConditions(filter),
    ['order_id > ?', filter.afterOrderId],
  ]
  const given = pairs.filter((pair): pair is readonly [string, string] => pair[1] !== undefined)
  const index = filter.customer !== undefined ? 'orders_by_customer'
    : filter.location !== undefined ? 'orders_by_location'
      : filter.status !== undefined ? 'orders_by_status' : null
  const where = given.map(([clause]) => clause).join(' AND ')
  const values = given.map(([, value]) => value)
  if (index === null && filter.updatedSince !== undefined) {
    return {
      sql: `SELECT * FROM orders WHERE account = ? AND order_id IN (SELECT order_id FROM orders INDEXED BY orders_by_updated WHERE ${where} ORDER BY order_id LIMIT ?) ORDER BY order_id`,
      values: [account, ...values, filter.limit],
    }
  }
  return { sql: `SELECT * FROM orders${index === null ? '' : ` INDEXED BY ${index}`} WHERE ${where} ORDER BY order_id LIMIT ?`, values: [...values, filter.limit] }
}

/** The read API's filters as SQL conditions, each with its value (undefined: not filtered on). */
export function filterConditions(filter: ListFilters): Array<[string, string | undefined]> {
  return [
    ['status = ?', filter.status],
    ['customer = ?', filter.customer],
    ['location = ?', filter.location],
    ['updated_at_key >= ?', filter.updatedSince],
  ]
}
