#!/usr/bin/env node
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Sqlite from 'better-sqlite3'
import { canonicalJson, eventIdFor, SCHEMA_VERSION, streamNameFor, type WireEvent } from '@waybill/domain'
import { categoryOf, hashEvent, openSqliteEventStore, verifyStreamChain, type EventData } from '@waybill/event-store'
import { toHex, verifyConsistency, verifyInclusion } from '@waybill/merkle'
import { ReadModel, rebuildReadModel } from '@waybill/projector'

/**
 * `pnpm bench:rebuild`: writes BENCH_EVENTS (default 1,000,000) order events into a fresh
 * SQLite store, then rebuilds the orders read model from position 0 and prints events/s.
 *
 * Loading: the adapter has no bulk-load helper and appends one stream at a time, so the bench
 * lets the adapter create the file and its schema, then inserts rows with one prepared
 * statement in big transactions, computing each hash and prev_hash with the store's own
 * `hashEvent` and canonical JSON exactly as its writer does. Every stream of a sample is then
 * read back through the adapter and checked with `verifyStreamChain`, so the log is valid.
 * The rebuild builds the audit log's tree too (docs/audit.md#the-tree); the bench then times
 * inclusion and consistency proofs in the rebuilt tree of TOTAL leaves, each one verified.
 */
const TOTAL = Number(process.env['BENCH_EVENTS'] ?? 1_000_000)
const LOAD_TRANSACTION = 50_000
const PER_ORDER = 4

const date = (n: number): string => new Date(Date.UTC(2025, 0, 1) + n * 1000).toISOString().replace('.000Z', 'Z')
const metadata = { received_at: '2025-01-01T00:00:00Z', key_id: 'bench', request_id: 'bench', schema_version: SCHEMA_VERSION }

function orderEvents(account: string, n: number): EventData[] {
  const orderId = `bench-${n}`
  const event = (wire: WireEvent, type: string, data: Record<string, unknown>): EventData =>
    ({ id: eventIdFor(account, wire, data), type, data, metadata })
  return [
    event('ORDER_ADD', 'OrderAdded', { order_id: orderId, customer: `c-${n % 1000}`, location: `l-${n % 50}`, status: 'pending', address: `${n} Main St`, delivery_date: date(n + 86400), event_date: date(n) }),
    event('ORDER_UPDATE', 'OrderUpdated', { order_id: orderId, status: 'in_progress', address: `${n} Main St`, delivery_date: date(n + 90000), event_date: date(n + 60) }),
    event('ORDER_UPDATE', 'OrderUpdated', { order_id: orderId, status: 'in_progress', address: `${n} Side St`, delivery_date: date(n + 90000), event_date: date(n + 120) }),
    n % 5 === 0
      ? event('ORDER_CANCELED', 'OrderCanceled', { order_id: orderId, reason: 'customer asked', event_date: date(n + 180) })
      : event('ORDER_COMPLETE', 'OrderCompleted', {
        order_id: orderId, address: `${n} Side St`, delivery_date: date(n + 180), recipient: 'R. Cipient', event_date: date(n + 180),
        pod: { sha256: n.toString(16).padStart(64, '0'), media_type: 'image/jpeg', bytes: 20_000 },
      }),
  ]
}

async function load(path: string, orders: number): Promise<void> {
  const created = await openSqliteEventStore({ path, writer: 'inline' })
  await created.close()
  const db = new Sqlite(path)
  db.pragma('synchronous = OFF')
  const insert = db.prepare(`INSERT INTO events (stream, category, revision, event_id, type, data, metadata, hash, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
  const now = Date.now()
  const insertOrders = db.transaction((from: number, to: number) => {
    for (let n = from; n < to; n += 1) {
      const account = n % 3 === 0 ? 'globex' : 'acme'
      const streamName = streamNameFor(account, `bench-${n}`)
      let previous: string | null = null
      for (const [revision, event] of orderEvents(account, n).entries()) {
        const withPrevious = { ...event.metadata, prev_hash: previous }
        const hash = hashEvent({ streamName, revision, id: event.id, type: event.type, data: event.data, metadata: withPrevious })
        insert.run(streamName, categoryOf(streamName), revision, event.id, event.type, canonicalJson(event.data), canonicalJson(withPrevious), hash, now)
        previous = hash
      }
    }
  })
  for (let from = 0; from < orders; from += LOAD_TRANSACTION / PER_ORDER) insertOrders(from, Math.min(orders, from + LOAD_TRANSACTION / PER_ORDER))
  db.pragma('wal_checkpoint(TRUNCATE)')
  db.close()
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'waybill-rebuild-bench-'))
  const path = join(dataDir, 'events.sqlite')
  const orders = Math.ceil(TOTAL / PER_ORDER)
  process.stdout.write(`loading ${orders * PER_ORDER} events (${orders} orders) into ${path} …\n`)
  const loadStart = performance.now()
  await load(path, orders)
  const loadSeconds = (performance.now() - loadStart) / 1000
  process.stdout.write(`loaded in ${loadSeconds.toFixed(1)} s\n`)
  const store = await openSqliteEventStore({ path, readAllBatchSize: 20_000 })
  try {
    for (let n = 0; n < orders; n += Math.max(1, Math.floor(orders / 1000))) {
      const stream = streamNameFor(n % 3 === 0 ? 'globex' : 'acme', `bench-${n}`)
      const verdict = verifyStreamChain(await store.readStream(stream))
      if (!verdict.ok) throw new Error(`the bench wrote a broken hash chain in ${stream}: ${verdict.reason}`)
    }
    process.stdout.write('hash chains of a 1,000-stream sample verified through the adapter\n')

    let lastLine = 0
    const result = await rebuildReadModel({
      store,
      dataDir,
      onProgress: (p) => {
        if (p.elapsedMs - lastLine < 2000) return
        lastLine = p.elapsedMs
        process.stdout.write(`  rebuild: ${p.events} events, ${Math.round((p.events * 1000) / p.elapsedMs)} events/s\n`)
      },
    })
    const seconds = result.elapsedMs / 1000
    const readModel = new ReadModel(dataDir)
    const rows = readModel.listOrders('acme', { limit: 1 }).length
    if (rows !== 1) throw new Error('the rebuilt model is empty')
    process.stdout.write(`rebuild: ${result.events} events in ${seconds.toFixed(2)} s = ${Math.round(result.events / seconds)} events/s\n`)
    proofs(readModel)
    readModel.close()
  } finally {
    await store.close()
    if (process.env['BENCH_KEEP'] === undefined) await rm(dataDir, { recursive: true, force: true })
  }
}

/** Times proofs in the rebuilt tree: every one is checked with the RFC's verifier too. */
function proofs(readModel: ReadModel): void {
  const tree = readModel.tree()
  const size = tree.size()
  let started = performance.now()
  const root = tree.root(size)
  process.stdout.write(`audit tree: ${size} leaves, root ${toHex(root)} in ${(performance.now() - started).toFixed(1)} ms\n`)
  const count = 1000
  let spent = 0
  for (let i = 0; i < count; i += 1) {
    const index = Math.floor((i * size) / count)
    started = performance.now()
    const path = tree.inclusion(index, size)
    spent += performance.now() - started
    if (!verifyInclusion(tree.hashes.leaf(index), index, size, path, root)) throw new Error(`inclusion proof of leaf ${index} does not verify`)
  }
  process.stdout.write(`inclusion proof: ${((spent * 1000) / count).toFixed(0)} µs each (${count} leaves across the tree)\n`)
  spent = 0
  for (let i = 1; i <= 100; i += 1) {
    const first = Math.floor((i * size) / 101)
    started = performance.now()
    const proof = tree.consistency(first, size)
    const firstRoot = tree.root(first)
    spent += performance.now() - started
    if (!verifyConsistency(first, size, firstRoot, root, proof)) throw new Error(`consistency proof ${first} -> ${size} does not verify`)
  }
  process.stdout.write(`consistency proof (with the older root): ${((spent * 1000) / 100).toFixed(0)} µs each\n`)
}

await main()
