#!/usr/bin/env node
/**
 * Store benchmark: appends/s on a fresh, durable (WAL, synchronous=FULL) SQLite file in a temp
 * dir, for one sequential writer and for 64 concurrent appenders with and without group commit,
 * on both writers (worker thread and main thread). Prints figures; asserts nothing.
 *
 *   pnpm bench:store                       (from the repository root)
 *   node packages/bench/dist/store-bench.js [seconds per scenario, default 3]
 */
import { randomUUID } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openSqliteEventStore, summarizeBatchSizes, type SqliteEventStoreOptions } from '@waybill/event-store'

interface Scenario {
  readonly name: string
  readonly appenders: number
  readonly store: Omit<SqliteEventStoreOptions, 'path'>
  /** Synchronous main-thread work per append (µs), standing in for HTTP parsing and validation. */
  readonly cpuMicros?: number
}

const seconds = Number(process.argv[2] ?? 3)
const data = { order_id: 'A-1', customer: 'C-7', location: 'L-3', status: 'pending', address: '1 Quay Street',
  delivery_date: '2025-03-01T10:00:00Z', event_date: '2025-02-27T08:00:00Z' }
const metadata = { received_at: '2025-02-27T08:00:01Z', key_id: 'k', request_id: 'r', schema_version: 1 }

function burn(micros: number): void {
  const until = process.hrtime.bigint() + BigInt(micros * 1000)
  while (process.hrtime.bigint() < until) { /* busy: the main thread's own work */ }
}

async function run(scenario: Scenario): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'waybill-bench-'))
  const store = await openSqliteEventStore({ path: join(dir, 'events.db'), ...scenario.store })
  try {
    let appends = 0
    const deadline = Date.now() + seconds * 1000
    const appender = async (n: number): Promise<void> => {
      const stream = `order-bench-${n}-${randomUUID()}`
      for (let revision = -1; Date.now() < deadline; revision += 1) {
        if (scenario.cpuMicros !== undefined) burn(scenario.cpuMicros)
        await store.appendToStream(stream, [{ id: randomUUID(), type: 'OrderUpdated', data, metadata }],
          { expectedRevision: revision < 0 ? 'no_stream' : revision })
        appends += 1
      }
    }
    const started = process.hrtime.bigint()
    await Promise.all(Array.from({ length: scenario.appenders }, (_, n) => appender(n)))
    const elapsed = Number(process.hrtime.bigint() - started) / 1e9
    const batches = summarizeBatchSizes(store.stats())
    const rate = Math.round(appends / elapsed)
    results.set(scenario.name, rate)
    console.log(`${scenario.name.padEnd(58)} ${String(rate).padStart(7)} appends/s   ` +
      `batch size mean ${batches.mean.toFixed(1)}, p50 ${batches.p50}, max ${batches.max}`)
  } finally {
    await store.close()
    await rm(dir, { recursive: true, force: true })
  }
}

const results = new Map<string, number>()
// A tuple (`as const`), so the ratios below name their scenarios by index without a check.
const scenarios = [
  { name: '1 sequential writer (worker)', appenders: 1, store: { writer: 'worker' } },
  { name: '64 appenders, group commit (worker)', appenders: 64, store: { writer: 'worker' } },
  { name: '64 appenders, commit per append (worker, maxBatchSize 1)', appenders: 64, store: { writer: 'worker', maxBatchSize: 1 } },
  { name: '1 sequential writer (inline)', appenders: 1, store: { writer: 'inline' } },
  { name: '64 appenders, group commit (inline)', appenders: 64, store: { writer: 'inline' } },
  { name: '64 appenders, commit per append (inline, maxBatchSize 1)', appenders: 64, store: { writer: 'inline', maxBatchSize: 1 } },
  { name: '64 appenders + 100µs main-thread work each (worker)', appenders: 64, store: { writer: 'worker' }, cpuMicros: 100 },
  { name: '64 appenders + 100µs main-thread work each (inline)', appenders: 64, store: { writer: 'inline' }, cpuMicros: 100 },
] as const satisfies readonly Scenario[]

console.log(`SQLite store benchmark: WAL, synchronous=FULL, fresh file in ${tmpdir()}, ${seconds}s per scenario`)
for (const scenario of scenarios) await run(scenario)
const ratio = (a: string, b: string): string => ((results.get(a) ?? 0) / Math.max(1, results.get(b) ?? 0)).toFixed(1)
console.log(`group commit / commit per append at 64 appenders: worker ${ratio(scenarios[1].name, scenarios[2].name)}x, ` +
  `inline ${ratio(scenarios[4].name, scenarios[5].name)}x`)
