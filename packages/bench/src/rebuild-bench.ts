#!/usr/bin/env node
import { generateKeyPairSync } from 'node:crypto'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import Sqlite from 'better-sqlite3'
import { canonicalJson, eventIdFor, SCHEMA_VERSION, streamNameFor, type WireEvent } from '@waybill/domain'
import {
  categoryOf, hashEvent, openSqliteEventStore, verifyStreamChain, type EventData, type EventStore, type Position,
} from '@waybill/event-store'
import { toHex, verifyConsistency, verifyInclusion } from '@waybill/merkle'
import {
  AuditLog, HeadStore, ReadModel, rebuildAuditLog, rebuildReadModel, startProjector, type RebuildProgress,
} from '@waybill/projector'

/**
 * `pnpm bench:rebuild`: writes BENCH_EVENTS (default 1,000,000) order events into a fresh
 * SQLite store, then times, each in events/s: the orders read model rebuilt from position 0
 * (`waybill rebuild`); the audit projection catching up from an empty audit log as the live
 * projector does, on a data dir with no head (signing a head every 1,000 leaves on the way) and
 * after an upgrade (heads kept up to the end of the log); and `waybill audit rebuild`.
 *
 * Loading: the adapter has no bulk-load helper and appends one stream at a time, so the bench
 * lets the adapter create the file and its schema, then inserts rows with one prepared
 * statement in big transactions, computing each hash and prev_hash with the store's own
 * `hashEvent` and canonical JSON exactly as its writer does. Every stream of a sample is then
 * read back through the adapter and checked with `verifyStreamChain`, so the log is valid.
 * The bench then times inclusion and consistency proofs in the audit log's tree of TOTAL leaves
 * (docs/audit.md#the-tree), each one verified.
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

    let cpu = process.cpuUsage()
    const rebuilt = await rebuildReadModel({ store, dataDir, onProgress: every2s('orders rebuild') })
    const readModel = new ReadModel(dataDir)
    const rows = readModel.listOrders('acme', { limit: 1 }).length
    readModel.close()
    if (rows !== 1) throw new Error('the rebuilt model is empty')
    const ordersRate = report('orders rebuild (waybill rebuild)', rebuilt.events, rebuilt.elapsedMs, process.cpuUsage(cpu))

    const head = await store.headPosition()
    if (head === null) throw new Error('the bench wrote no event')
    const heads = HeadStore.inDataDir(dataDir)
    cpu = process.cpuUsage()
    const fresh = await catchUpFromEmpty(store, dataDir, heads, head)
    const signed = heads.list(null, 1_000_000).length
    const freshRate = report(`audit projection catching up from empty, no head kept (a restored or new data dir; ${signed} heads signed on the way, one every 1,000 leaves)`,
      orders * PER_ORDER, fresh, process.cpuUsage(cpu))

    cpu = process.cpuUsage()
    const audit = await rebuildAuditLog({ store, dataDir, heads, onProgress: every2s('audit rebuild') })
    report(`audit rebuild (waybill audit rebuild; ${audit.leaves} leaves checked against ${audit.headsChecked} heads)`, audit.events, audit.elapsedMs, process.cpuUsage(cpu))

    // As after an upgrade from the release that kept the tree in the read model: no audit log
    // file, heads kept up to the end of the log; nothing is signed until the tree passes them.
    for (const name of await readdir(dataDir)) if (name.startsWith('audit-log.')) await rm(join(dataDir, name))
    cpu = process.cpuUsage()
    const upgraded = await catchUpFromEmpty(store, dataDir, heads, head)
    const upgradedRate = report(`audit projection catching up from empty, heads kept (after an upgrade; ${heads.list(null, 1_000_000).length - signed} heads signed on the way)`,
      orders * PER_ORDER, upgraded, process.cpuUsage(cpu))
    heads.close()

    const log = new AuditLog(dataDir)
    proofs(log)
    log.close()
    // The two projections' rates apart, with the goals they are measured against.
    const rate = (n: number, goal: number): string => `${n.toLocaleString('en')} events/s (goal ≥ ${goal.toLocaleString('en')}: ${n >= goal ? 'met' : 'NOT met'})`
    process.stdout.write(`orders read model rebuild: ${rate(ordersRate, 150_000)}\n`)
    process.stdout.write(`audit projection catching up from empty: ${rate(freshRate, 100_000)} with no head kept; ${rate(upgradedRate, 100_000)} with heads kept\n`)
  } finally {
    await store.close()
    if (process.env['BENCH_KEEP'] === undefined) await rm(dataDir, { recursive: true, force: true })
  }
}

/**
 * The live projector, as `waybill serve` and `waybill projector` run it (default batch and head
 * policy), on a data dir whose orders read model is current and whose audit log does not exist
 * yet: the time until the audit log's checkpoint reaches `head`.
 */
async function catchUpFromEmpty(store: EventStore, dataDir: string, heads: HeadStore, head: Position): Promise<number> {
  const { privateKey } = generateKeyPairSync('ed25519')
  const started = performance.now()
  const projector = startProjector({ store, dataDir, audit: { signingKey: privateKey, heads } })
  const progress = setInterval(() => {
    const status = projector.status().audit
    process.stdout.write(`  audit catch-up: ${status?.treeSize ?? 0} leaves, ${Math.round(((status?.treeSize ?? 0) * 1000) / (performance.now() - started))} events/s\n`)
  }, 2000)
  try {
    await projector.waitFor(head, 3_600_000)
    return performance.now() - started
  } finally {
    clearInterval(progress)
    await projector.stop()
  }
}

function every2s(label: string): (p: RebuildProgress) => void {
  let lastLine = 0
  return (p) => {
    if (p.elapsedMs - lastLine < 2000) return
    lastLine = p.elapsedMs
    process.stdout.write(`  ${label}: ${p.events} events, ${Math.round((p.events * 1000) / p.elapsedMs)} events/s\n`)
  }
}

/**
 * Prints events/s of wall time, and of this process's CPU time (user + system, every thread): on a
 * machine shared with other work the wall time measures the neighbours too, the CPU time less so.
 */
function report(what: string, events: number, elapsedMs: number, cpu: NodeJS.CpuUsage): number {
  const seconds = elapsedMs / 1000
  const cpuSeconds = (cpu.user + cpu.system) / 1e6
  const rate = Math.round(events / seconds)
  process.stdout.write(`${what}: ${events} events in ${seconds.toFixed(2)} s = ${rate} events/s ` +
    `(CPU ${cpuSeconds.toFixed(2)} s = ${Math.round(events / cpuSeconds)} events/s of CPU; load ${loadavg()[0]?.toFixed(1)})\n`)
  return rate
}

/** Times proofs in the audit log of TOTAL leaves: every one is checked with the RFC's verifier too. */
function proofs(log: AuditLog): void {
  const size = log.size()
  let started = performance.now()
  const root = log.root(size)
  process.stdout.write(`audit tree: ${size} leaves, root ${toHex(root)} in ${(performance.now() - started).toFixed(1)} ms\n`)
  const count = 1000
  let spent = 0
  for (let i = 0; i < count; i += 1) {
    const index = Math.floor((i * size) / count)
    started = performance.now()
    const path = log.inclusion(index, size)
    spent += performance.now() - started
    if (!verifyInclusion(log.leafHash(index), index, size, path, root)) throw new Error(`inclusion proof of leaf ${index} does not verify`)
  }
  process.stdout.write(`inclusion proof: ${((spent * 1000) / count).toFixed(0)} µs each (${count} leaves across the tree)\n`)
  spent = 0
  for (let i = 1; i <= 100; i += 1) {
    const first = Math.floor((i * size) / 101)
    started = performance.now()
    const proof = log.consistency(first, size)
    const firstRoot = log.root(first)
    spent += performance.now() - started
    if (!verifyConsistency(first, size, firstRoot, root, proof)) throw new Error(`consistency proof ${first} -> ${size} does not verify`)
  }
  process.stdout.write(`consistency proof (with the older root): ${((spent * 1000) / 100).toFixed(0)} µs each\n`)
}

await main()
