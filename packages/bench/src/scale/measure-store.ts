import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { drive } from '../throughput/drive.js'
import { WAYBILL_MAIN } from '../throughput/run-bench.js'
import { measureServerCpu } from '../throughput/server-cpu.js'
import { startServerProcess, type ServerProcess } from '../throughput/server-process.js'
import { issueKey, type BuiltStore } from './build-store.js'
import { bytesOnDisk, eventsIn } from './disk-usage.js'
import { readLoad, summarize, type ReadTimes } from './read-load.js'
import { readRequest, READS, type ReadName } from './read-targets.js'
import type { IngestFigures, StoreFigures } from './scale-report.js'
import { timeCommand } from './timed-command.js'

export interface MeasureOptions {
  /** Timed requests per read and store, over all rounds. */
  readonly requests: number
  /** Each read is run this many times on each store, the stores in turn. */
  readonly rounds: number
  /** Connections the reads are sent over. */
  readonly connections: number
  readonly ingestSeconds: number
  /** An unmeasured ORDER_ADD load before the measured one. */
  readonly ingestWarmupSeconds: number
  readonly ingestConnections: number
  readonly log: (line: string) => void
}

/** The account the ingest writes its new orders to, apart from the ones the reads list. */
const INGEST_ACCOUNT = 'ingest'

/** A run of a read: its times, and the server's CPU seconds for its timed requests. */
type Run = ReadTimes & { readonly cpuSeconds: number | null }

/** Quiet between reads: the server idles between two runs, so a short wait; its idle CPU is a few ms a run. */
const READ_QUIET = { intervalMs: 200, quietSeconds: 0.011, maxMs: 5000 }

interface Serving {
  readonly store: BuiltStore
  readonly server: ServerProcess
  readonly ingestKey: string
  readonly events: number
  readonly bytes: number
  readonly startSeconds: number
}

/**
 * Measures built stores side by side: starts `waybill serve` on each (rate limits lifted,
 * LOG_LEVEL=warn), runs each read on one store and then the other, `rounds` times, so the
 * machine's other work weighs on both alike; then a short ORDER_ADD load on each, whose server
 * CPU is read from /proc as `pnpm bench` reads it; stops the servers, and times `waybill verify`
 * and `waybill audit verify` on each. Each data dir and subject key store is weighed first.
 */
export async function measureStores(stores: readonly BuiltStore[], options: MeasureOptions): Promise<StoreFigures[]> {
  const serving: Serving[] = []
  const reads = stores.map(() => new Map<ReadName, Run[]>())
  const ingests: IngestFigures[] = []
  try {
    for (const store of stores) {
      const ingestKey = await keyFor(store, INGEST_ACCOUNT)
      const dataDir = store.env.WAYBILL_DATA_DIR ?? ''
      const events = eventsIn(join(dataDir, 'events.sqlite'))
      // Weighed before the ingest adds orders of its own (no photos, no history) to the store.
      const bytes = await bytesOnDisk([dataDir, `${dataDir}.subject-keys`])
      options.log(`${store.dir}: ${events} events, ${bytes} bytes; starting waybill serve`)
      const started = performance.now()
      const server = await startServerProcess(WAYBILL_MAIN, ['serve'], {
        ...store.env, LOG_LEVEL: 'warn', WAYBILL_RATE_LIMIT: '1000000000', WAYBILL_RATE_LIMIT_PER_ADDRESS: '1000000000',
      })
      const startSeconds = (performance.now() - started) / 1000
      options.log(`  listening after ${startSeconds.toFixed(1)} s`)
      serving.push({ store, ingestKey, events, bytes, server, startSeconds })
    }
    const perRound = Math.ceil(options.requests / options.rounds)
    for (const read of READS) {
      for (let round = 0; round < options.rounds; round += 1) {
        // Which store goes first alternates from round to round.
        for (const k of serving.keys()) {
          const at = round % 2 === 0 ? k : serving.length - 1 - k
          const { store, server } = serving[at] as Serving
          // The warm-up requests are counted in the server's CPU, not in the times: the CPU is per request sent.
          const warmup = options.connections * 5
          const { result, cpu } = await measureServerCpu(server.child.pid ?? 0, () => readLoad(server.httpsUrl, (i) => readRequest(read, i, store.orders, store.apiKeys),
            { first: round * perRound, requests: perRound, connections: options.connections, warmup }), READ_QUIET)
          const mine = reads[at] as Map<ReadName, Run[]>
          mine.set(read, [...mine.get(read) ?? [], { ...result, cpuSeconds: cpu === null ? null : (cpu.seconds * result.times.length) / (result.times.length + warmup) }])
        }
      }
      options.log(`  ${read}: ${serving.map((_, at) => {
        const figures = summarize(reads[at]?.get(read) ?? [])
        return `p50 ${figures.p50Ms.toFixed(2)} ms, p99 ${figures.p99Ms.toFixed(2)} ms, CPU ${figures.cpuUs?.toFixed(0) ?? '–'} µs${figures.failed > 0 ? `, ${figures.failed} FAILED` : ''}`
      }).join(' | ')}`)
    }
    for (const { server, ingestKey } of serving) {
      // Unmeasured first: the write path has not run in this server yet (its code not optimized, its statements not prepared).
      const runId = `scale-${Date.now().toString(36)}`
      await drive({ url: server.httpsUrl, key: ingestKey, phase: 'add', seconds: options.ingestWarmupSeconds, connections: options.ingestConnections, runId: `${runId}-w` })
      const { result, cpu } = await measureServerCpu(server.child.pid ?? 0, () => drive({
        url: server.httpsUrl, key: ingestKey, phase: 'add', seconds: options.ingestSeconds, connections: options.ingestConnections, runId,
      }))
      ingests.push({ accepted: result.ok, failed: result.total - result.ok + result.errors + result.timeouts, cpuSeconds: cpu?.seconds ?? null })
      options.log(`  ingest: ${result.ok} accepted, server CPU ${cpu === null ? '–' : `${cpu.seconds.toFixed(2)} s`}`)
    }
  } finally {
    for (const { server } of serving) await server.stop()
  }
  const figures: StoreFigures[] = []
  for (const [at, { store, events, bytes, startSeconds }] of serving.entries()) {
    const dataDir = store.env.WAYBILL_DATA_DIR ?? ''
    options.log(`${store.dir}: waybill verify …`)
    const verify = await timeCommand(WAYBILL_MAIN, ['verify'], store.env)
    options.log(`  waybill verify: ${verify.wallSeconds.toFixed(1)} s (exit ${verify.code}); waybill audit verify …`)
    const auditVerify = await timeCommand(WAYBILL_MAIN, ['audit', 'verify'], store.env)
    options.log(`  waybill audit verify: ${auditVerify.wallSeconds.toFixed(1)} s (exit ${auditVerify.code})`)
    figures.push({
      events,
      reads: Object.fromEntries(READS.map((read) => [read, summarize(reads[at]?.get(read) ?? [])])) as StoreFigures['reads'],
      ingest: ingests[at] as IngestFigures, startSeconds, verify, auditVerify,
      bytesOnDisk: bytes, eventsAfter: eventsIn(join(dataDir, 'events.sqlite')),
    })
  }
  return figures
}

/** A key with every scope for `account`, made once with `waybill keys create` and kept in `<dir>/<account>-key`. */
async function keyFor(built: BuiltStore, account: string): Promise<string> {
  const file = join(built.dir, `${account}-key`)
  try {
    return (await readFile(file, 'utf8')).trim()
  } catch {
    const key = await issueKey(built.env, account)
    await writeFile(file, `${key}\n`, { mode: 0o600 })
    return key
  }
}
