import type { Database, Statement } from 'better-sqlite3'

const prepared = new WeakMap<Database, Map<string, Statement>>()

/** `db.prepare(sql)`, once per connection: the deliverer runs the same few statements per message. */
export function statement<Params extends unknown[] = unknown[], Row = unknown>(db: Database, sql: string): Statement<Params, Row> {
  let cache = prepared.get(db)
  if (cache === undefined) {
    cache = new Map()
    prepared.set(db, cache)
  }
  let found = cache.get(sql)
  if (found === undefined) {
    found = db.prepare(sql)
    cache.set(sql, found)
  }
  return found as unknown as Statement<Params, Row>
}
