import { execFile } from 'node:child_process'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Worker } from 'node:worker_threads'
import Sqlite from 'better-sqlite3'
import { openSqliteEventStore, siblingWorkerUrl } from '@waybill/event-store'
import { openSqliteKeyStore } from '@waybill/personal-data'
import { followSigningKey, HeadStore, openSigningKey, ReadModel, rebuildReadModel, startProjector } from '@waybill/projector'
import { WAYBILL_MAIN } from '../throughput/run-bench.js'
import { chunkRows, dropPhotosFrom, type ChunkRequest, type EventRow } from './chunk-rows.js'
import { accountOf, ACCOUNTS, customerOf, orderIdOf, PER_ORDER } from './shape.js'

/** A built store: where it is, the environment `waybill` needs for it, and a key per account. */
export interface BuiltStore {
  readonly dir: string
  readonly orders: number
  /** Order events in the store as built (the keys' own events and later ingests aside). */
  readonly events: number
  readonly env: Readonly<Record<string, string>>
  /** A key with every scope, per account. */
  readonly apiKeys: Readonly<Record<string, string>>
}

/** What `<dir>/built.json` records once a build has finished. */
interface Built {
  readonly orders: number
  readonly apiKeys: Record<string, string>
}

/** Orders per load transaction: their keys made in one transaction, their events in another. */
const CHUNK = 10_000
const execFileAsync = promisify(execFile)

/** The environment every `waybill` command of the bench runs with on a store in `dir`. */
function storeEnv(dir: string): Record<string, string> {
  return { WAYBILL_DATA_DIR: join(dir, 'data'), WAYBILL_AUDIT_KEY_DIR: join(dir, 'audit-key') }
}

/**
 * Builds (or finds built) a store of `orders` × 4 order events in `dir`, as the service would
 * hold them (schema version 2): each order's key in the subject key store, its personal fields
 * sealed with it, its photos sealed into the blob store. Rows are inserted directly, hashed with
 * the store's own `hashEvent` and canonical JSON as its writer does (as `pnpm bench:rebuild`
 * loads), the events of a chunk of orders interleaved as they arrive in a day. Then the
 * projections are brought up by the project's own code: the orders read model by
 * `rebuildReadModel` (`waybill rebuild`), the audit log and its signed heads by the live
 * projector catching up, signing with the key `waybill serve` would make and use.
 *
 * Resumable: the load records how many orders it has committed, in the same transaction as
 * their events, and carries on from there; keys and blobs are made again idempotently (the
 * keys are kept, the sealing is deterministic). A finished build writes `built.json` and is
 * reused as it is.
 */
export async function buildStore(dir: string, orders: number, options: LoadOptions): Promise<BuiltStore> {
  const { log } = options
  const env = storeEnv(dir)
  const built = await readBuilt(dir)
  if (built !== null) {
    if (built.orders !== orders) throw new Error(`${dir} holds a store of ${built.orders} orders, not ${orders}: use another --dir`)
    log(`reusing the store built in ${dir} (${orders * PER_ORDER} order events)`)
    return { dir, orders, events: orders * PER_ORDER, env, apiKeys: built.apiKeys }
  }
  const dataDir = env.WAYBILL_DATA_DIR ?? ''
  await mkdir(dataDir, { recursive: true })
  const apiKeys = await issueKeys(dir, env)
  const started = performance.now()
  await loadOrders(dataDir, orders, options)
  log(`loaded ${orders * PER_ORDER} events in ${seconds(started)} s`)
  await bringUpProjections(dir, log)
  await writeFile(join(dir, 'built.json'), `${JSON.stringify({ orders, apiKeys } satisfies Built)}\n`)
  return { dir, orders, events: orders * PER_ORDER, env, apiKeys }
}

async function readBuilt(dir: string): Promise<Built | null> {
  try {
    return JSON.parse(await readFile(join(dir, 'built.json'), 'utf8')) as Built
  } catch {
    return null
  }
}

/** A key with every scope for each account, made once through `waybill keys create` and kept in `<dir>/api-keys.json`. */
async function issueKeys(dir: string, env: Record<string, string>): Promise<Record<string, string>> {
  const file = join(dir, 'api-keys.json')
  try {
    return JSON.parse(await readFile(file, 'utf8')) as Record<string, string>
  } catch {
    const apiKeys: Record<string, string> = {}
    for (const [account] of ACCOUNTS) apiKeys[account] = await issueKey(env, account)
    await writeFile(file, `${JSON.stringify(apiKeys)}\n`, { mode: 0o600 })
    return apiKeys
  }
}

/** A new key with every scope for `account`, from `waybill keys create` (which prints it once). */
export async function issueKey(env: Readonly<Record<string, string>>, account: string): Promise<string> {
  const { stdout } = await execFileAsync(process.execPath, [WAYBILL_MAIN, 'keys', 'create', '--account', account, '--scopes', 'all', '--label', 'scale bench'],
    { env: { ...process.env, ...env } })
  return stdout.trim()
}

export interface LoadOptions {
  /** Threads that seal and hash the orders (0: this one). */
  readonly threads: number
  /** Orders per transaction (default 10,000). */
  readonly chunk?: number
  readonly log: (line: string) => void
}

/**
 * Loads orders 0 to `orders` − 1 into the store in `dataDir`, carrying on after those a
 * stopped load committed (recorded in the store's `bench_load` table, in the transaction of
 * their events), or cutting a load that went further back to them.
 */
export async function loadOrders(dataDir: string, orders: number, options: LoadOptions): Promise<void> {
  const { threads, log } = options
  const chunk = options.chunk ?? CHUNK
  const path = join(dataDir, 'events.sqlite')
  // The adapter makes the file and its schema; the rows go in through one prepared statement.
  await (await openSqliteEventStore({ path, writer: 'inline' })).close()
  const keys = await openSqliteKeyStore({ dir: `${dataDir}.subject-keys` })
  const db = new Sqlite(path)
  db.pragma('synchronous = OFF')
  db.exec('CREATE TABLE IF NOT EXISTS bench_load (orders INTEGER NOT NULL, position INTEGER NOT NULL)')
  const done = cutBack(db, orders, chunk)
  if (done === orders) dropPhotosFrom(orders, (account, orderId) => keys.get(account, orderId), join(dataDir, 'blobs'))
  const insert = db.prepare(`INSERT INTO events (stream, category, revision, event_id, type, data, metadata, hash, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
  const mark = db.prepare('INSERT INTO bench_load (orders, position) VALUES (?, (SELECT max(position) FROM events))')
  const insertChunk = db.transaction((rows: readonly EventRow[], to: number) => {
    for (const row of rows) insert.run(...row)
    mark.run(to)
  })
  const pool = rowMakers(threads)
  const started = performance.now()
  if (done > 0) log(`resuming the load after ${done} orders`)
  try {
    // Chunks are sealed on the pool's threads, a few ahead, and inserted here in order.
    const inFlight: Array<{ readonly to: number; readonly rows: Promise<readonly EventRow[]> }> = []
    const insertNext = async (): Promise<void> => {
      const next = inFlight.shift()
      if (next === undefined) return
      insertChunk(await next.rows, next.to)
      if (next.to === orders || next.to % 100_000 === 0) {
        log(`  load: ${next.to} orders, ${Math.round(((next.to - done) * PER_ORDER) / Number(seconds(started)))} events/s`)
      }
    }
    for (let from = done; from < orders; from += chunk) {
      const to = Math.min(orders, from + chunk)
      const numbers = Array.from({ length: to - from }, (_, i) => from + i)
      const made = await keys.createMany(numbers.map((n) => ({ account: accountOf(n), orderId: orderIdOf(n), customer: customerOf(n) })))
      const orderKeys = made.map((key, i) => {
        if (key === 'erased') throw new Error(`the key of order ${from + i} is erased`)
        return { id: key.id, secret: key.secret }
      })
      inFlight.push({ to, rows: pool.make({ from, to, keys: orderKeys, blobDir: join(dataDir, 'blobs') }) })
      if (inFlight.length > threads) await insertNext()
    }
    while (inFlight.length > 0) await insertNext()
  } finally {
    await pool.close()
  }
  db.pragma('wal_checkpoint(TRUNCATE)')
  db.close()
  await keys.close()
}

/**
 * The orders already loaded, after cutting a load that went past `orders` back to them (a
 * smaller store is the beginning of a bigger one: a load that cannot finish in time is cut at
 * the last chunk boundary it passed). The keys of the orders cut off stay behind (their photos
 * are deleted by `dropPhotosFrom`).
 */
function cutBack(db: Sqlite.Database, orders: number, chunk: number): number {
  const done = (db.prepare('SELECT max(orders) AS n FROM bench_load').get() as { n: number | null }).n ?? 0
  if (done <= orders) return done
  const at = db.prepare('SELECT position FROM bench_load WHERE orders = ?').get(orders) as { position: number } | undefined
  if (at === undefined) throw new Error(`cannot cut a load of ${done} orders back to ${orders}: not a multiple of ${chunk}`)
  db.transaction(() => {
    db.prepare('DELETE FROM events WHERE position > ?').run(at.position)
    db.prepare('DELETE FROM bench_load WHERE orders > ?').run(orders)
  })()
  // The rows cut off leave free pages behind: given back, so the bytes per event are a store's own.
  db.exec('VACUUM')
  return orders
}

/** Worker threads that make chunks' rows (`row-worker.ts`), each answering its requests in order. */
function rowMakers(threads: number): { make(request: ChunkRequest): Promise<EventRow[]>; close(): Promise<void> } {
  const workers = Array.from({ length: threads }, () => {
    const worker = new Worker(siblingWorkerUrl('row-worker', import.meta.url))
    const waiting: Array<{ resolve(rows: EventRow[]): void; reject(error: Error): void }> = []
    worker.on('message', (rows: EventRow[]) => waiting.shift()?.resolve(rows))
    worker.on('error', (error) => { for (const w of waiting.splice(0)) w.reject(error) })
    return { worker, waiting }
  })
  let next = 0
  return {
    make(request) {
      const target = workers[next++ % workers.length]
      if (target === undefined) return Promise.resolve(chunkRows(request))
      return new Promise((resolve, reject) => {
        target.waiting.push({ resolve, reject })
        target.worker.postMessage(request)
      })
    },
    async close() {
      await Promise.all(workers.map(({ worker }) => worker.terminate()))
    },
  }
}

/** The orders read model by `rebuildReadModel`, then the audit log and its heads by the live projector. */
async function bringUpProjections(dir: string, log: (line: string) => void): Promise<void> {
  const { WAYBILL_DATA_DIR: dataDir = '', WAYBILL_AUDIT_KEY_DIR: keyDir = '' } = storeEnv(dir)
  const store = await openSqliteEventStore({ path: join(dataDir, 'events.sqlite'), readAllBatchSize: 20_000 })
  const keys = await openSqliteKeyStore({ dir: `${dataDir}.subject-keys` })
  const heads = HeadStore.inDataDir(dataDir)
  try {
    let started = performance.now()
    const rebuilt = await rebuildReadModel({
      store, dataDir, keys,
      onProgress: (p) => { if (p.events % 1_000_000 < 20_000) log(`  orders rebuild: ${p.events} events`) },
    })
    log(`orders read model rebuilt: ${rebuilt.events} events in ${seconds(started)} s`)
    const head = await store.headPosition()
    if (head === null) throw new Error('the load wrote no event')
    started = performance.now()
    const signing = openSigningKey(keyDir, heads, { create: true })
    const projector = startProjector({ store, dataDir, keys, audit: { signingKey: followSigningKey(keyDir, heads, signing), heads } })
    const progress = setInterval(() => { log(`  audit log: ${projector.status().audit?.treeSize ?? 0} leaves`) }, 30_000)
    try {
      await projector.waitFor(head, 6 * 3600_000)
    } finally {
      clearInterval(progress)
      await projector.stop()
    }
    log(`audit log caught up in ${seconds(started)} s, ${heads.list(null, 1).length > 0 ? 'heads signed' : 'NO HEAD SIGNED'}`)
    const model = new ReadModel(dataDir)
    try {
      if (model.checkpoint() === null) throw new Error('the orders read model has no checkpoint')
    } finally {
      model.close()
    }
  } finally {
    heads.close()
    await keys.close()
    await store.close()
  }
}

const seconds = (since: number): string => ((performance.now() - since) / 1000).toFixed(1)
