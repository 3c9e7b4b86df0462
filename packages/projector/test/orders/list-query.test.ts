import Sqlite from 'better-sqlite3'
import t from 'tap'
import { ReadModel, startProjector, type ListFilters, type OrderRow } from '../../src/index.js'
import { listQuery } from '../../src/orders/list-query.js'
import { timestampKey } from '../../src/orders/timestamp-key.js'
import { openStore, randomTraffic, tempDir } from '../helpers.js'

/** How SQLite runs a query: EXPLAIN QUERY PLAN's lines, joined. */
const planOf = (db: Sqlite.Database, query: { sql: string; values: ReadonlyArray<string | number> }): string =>
  (db.prepare(`EXPLAIN QUERY PLAN ${query.sql}`).all(...query.values) as Array<{ detail: string }>).map((row) => row.detail).join('; ')

t.test('each filter\'s page is a range of its own index, in list order, however many orders the account holds', async (t) => {
  const dir = await tempDir()
  t.teardown(() => dir.remove())
  const readModel = new ReadModel(dir.path)
  t.teardown(() => readModel.close())
  const db = new Sqlite(readModel.path, { readonly: true })
  t.teardown(() => db.close())
  const plan = (filter: Parameters<typeof listQuery>[1]) => planOf(db, listQuery('acme', filter))
  t.equal(plan({ customer: 'c', limit: 51 }), 'SEARCH orders USING INDEX orders_by_customer (account=? AND customer=?)')
  t.equal(plan({ customer: 'c', afterOrderId: 'o-5', limit: 51 }), 'SEARCH orders USING INDEX orders_by_customer (account=? AND customer=? AND order_id>?)')
  t.equal(plan({ location: 'l', limit: 51 }), 'SEARCH orders USING INDEX orders_by_location (account=? AND location=?)')
  t.equal(plan({ status: 'pending', afterOrderId: 'o-5', limit: 51 }), 'SEARCH orders USING INDEX orders_by_status (account=? AND status=? AND order_id>?)')
  t.equal(plan({ status: 'pending', customer: 'c', location: 'l', limit: 51 }), 'SEARCH orders USING INDEX orders_by_customer (account=? AND customer=?)',
    'the likeliest narrow filter names the index, the others are checked on its rows')
  t.equal(plan({ status: 'pending', location: 'l', limit: 51 }), 'SEARCH orders USING INDEX orders_by_location (account=? AND location=?)')
  t.equal(plan({ afterOrderId: 'o-5', limit: 51 }), 'SEARCH orders USING PRIMARY KEY (account=? AND order_id>?)', 'no filter: the primary key')
  t.equal(plan({ updatedSince: timestampKey('2030-01-01T00:00:00Z'), afterOrderId: 'o-5', limit: 51 }),
    'SEARCH orders USING PRIMARY KEY (account=? AND order_id=?); LIST SUBQUERY 1; SEARCH orders USING COVERING INDEX orders_by_updated (account=? AND updated_at_key>?); USE TEMP B-TREE FOR ORDER BY',
    'updated_since alone: the ids of the recent orders from their index alone, sorted, then the page\'s rows')
  t.equal(plan({ updatedSince: timestampKey('2030-01-01T00:00:00Z'), status: 'pending', limit: 51 }), 'SEARCH orders USING INDEX orders_by_status (account=? AND status=?)')
})

t.test('a list read through a filter\'s index pages over exactly the orders that match, in order_id order', async (t) => {
  const dir = await tempDir()
  const store = await openStore(dir.path)
  t.teardown(async () => {
    await store.close()
    await dir.remove()
  })
  await randomTraffic(store, { seed: 7, steps: 400, orders: 60 })
  const projector = startProjector({ store, keys: store.keys, dataDir: dir.path })
  await projector.waitFor((await store.headPosition())!)
  await projector.stop()
  const readModel = new ReadModel(dir.path)
  t.teardown(() => readModel.close())
  const all = [...readModel.allOrders()].filter((row) => row.account === 'acme')
  const pages = (filters: ListFilters): string[] => {
    const seen: string[] = []
    for (let after: string | undefined; ;) {
      const page = readModel.listOrders('acme', { ...filters, limit: 4, ...(after === undefined ? {} : { afterOrderId: after }) })
      seen.push(...page.map((row) => row.order_id))
      if (page.length < 4) return seen
      after = page.at(-1)?.order_id
    }
  }
  const matching = (keep: (row: OrderRow) => boolean): string[] => all.filter(keep).map((row) => row.order_id).sort()
  let lists = 0
  for (const customer of new Set(all.map((row) => row.customer))) {
    if (customer === null) continue
    for (const status of ['pending', 'in_progress', 'completed', 'canceled'] as const) {
      t.same(pages({ customer, status }), matching((row) => row.customer === customer && row.status === status), `${customer}, ${status}`)
      lists += 1
    }
    t.same(pages({ customer }), matching((row) => row.customer === customer), customer)
  }
  for (const location of new Set(all.map((row) => row.location))) {
    if (location !== null) t.same(pages({ location }), matching((row) => row.location === location), location)
  }
  t.same(pages({ status: 'completed' }), matching((row) => row.status === 'completed'))
  const dates = [...new Set(all.map((row) => row.updated_at_key))].sort()
  for (const since of [dates[0], dates[Math.floor(dates.length / 2)], dates.at(-1)]) {
    if (since === undefined) continue
    t.same(pages({ updatedSince: since }), matching((row) => row.updated_at_key >= since), `updated since ${since}`)
    t.same(pages({ updatedSince: since, status: 'completed' }), matching((row) => row.updated_at_key >= since && row.status === 'completed'))
  }
  t.ok(lists >= 8 && all.length > 20, `${all.length} orders of the account, ${lists} lists`)

  // An auditor's list narrowed to the account is the same list, paged on (account, order_id).
  const audited = (filters: ListFilters): string[] => {
    const seen: string[] = []
    for (let after: { account: string; orderId: string } | undefined; ;) {
      const page = readModel.listAllOrders({ ...filters, account: 'acme', limit: 4, ...(after === undefined ? {} : { after }) })
      seen.push(...page.map((row) => `${row.account}/${row.order_id}`))
      const last = page.at(-1)
      if (last === undefined || page.length < 4) return seen
      after = { account: last.account, orderId: last.order_id }
    }
  }
  for (const customer of new Set(all.map((row) => row.customer))) {
    if (customer !== null) t.same(audited({ customer }), matching((row) => row.customer === customer).map((id) => `acme/${id}`), `audited: ${customer}`)
  }
  t.same(audited({ status: 'completed' }), matching((row) => row.status === 'completed').map((id) => `acme/${id}`))
  t.same(readModel.listAllOrders({ account: 'acme', after: { account: 'aaa', orderId: 'x' }, limit: 500 }).map((row) => row.order_id), matching(() => true),
    'a cursor in an account before it: all of the account')
  t.same(readModel.listAllOrders({ account: 'acme', after: { account: 'zzz', orderId: 'x' }, limit: 5 }), [], 'a cursor in an account after it: nothing')
})
