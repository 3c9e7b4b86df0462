import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openSqliteEventStore } from '@waybill/event-store'
import { drive, type PhaseFigures } from './drive.js'
import type { Phase } from './workload.js'
import { startServerProcess } from './server-process.js'

export type Target = 'service' | 'ceiling'

export interface BenchOptions {
  readonly seconds: number
  readonly warmupSeconds: number
  readonly connections: number
  /** Write a V8 CPU profile of each server process into this directory. */
  readonly cpuProfDir: string | null
  readonly log: (line: string) => void
  /** Run the service without its in-process projector (`waybill serve --no-projector`). */
  readonly noProjector: boolean
  /** Rate of the fixed-rate latency phase (req/s); 0 skips it. */
  readonly rate: number
}

export interface TargetFigures {
  readonly phases: Readonly<Record<Phase, PhaseFigures>>
  /** The mix at a fixed request rate, below saturation: latency without queueing. */
  readonly fixedRate: PhaseFigures | null
  /** Order events found in the store after the run (service only): must equal the 2xx answers. */
  readonly storedEvents: number | null
  /** 2xx answers of the warm-up (not measured, but stored). */
  readonly warmupOk: number
  readonly profile: string | null
}

/**
 * Runs one target as a child process on a fresh data directory: `waybill serve` (the service)
 * or `waybill bench --ceiling-server` (same app, orders in memory). The per-key rate limit is
 * lifted and request logging is at `warn` for both, so neither measures a limit or a log pipe.
 */
export async function benchTarget(target: Target, options: BenchOptions): Promise<TargetFigures> {
  const dataDir = await mkdtemp(join(tmpdir(), `waybill-bench-${target}-`))
  try {
    const nodeFlags = options.cpuProfDir !== null ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfDir}`] : []
    const server = await startServerProcess(target === 'ceiling' ? ['bench', '--ceiling-server'] : options.noProjector ? ['serve', '--no-projector'] : ['serve'], {
      WAYBILL_DATA_DIR: dataDir, LOG_LEVEL: 'warn', WAYBILL_RATE_LIMIT: '1000000000',
    }, nodeFlags)
    const profilesBefore = options.cpuProfDir === null ? [] : await readdir(options.cpuProfDir).catch(() => [])
    let phases: Record<Phase, PhaseFigures>
    let warmupOk = 0
    let fixedRate: PhaseFigures | null = null
    try {
      const key = (await readFile(join(dataDir, 'test-api-key'), 'utf8')).trim()
      const runId = `bench-${Date.now().toString(36)}`
      const common = { url: server.httpsUrl, key, connections: options.connections }
      if (options.warmupSeconds > 0) {
        options.log(`${target}: warming up for ${options.warmupSeconds} s`)
        warmupOk = (await drive({ ...common, phase: 'mix', seconds: options.warmupSeconds, runId: `${runId}-w` })).ok
      }
      options.log(`${target}: phase 1 (ORDER_ADD, new orders) for ${options.seconds} s`)
      const add = await drive({ ...common, phase: 'add', seconds: options.seconds, runId: `${runId}-a` })
      options.log(`${target}: phase 2 (add, update, complete with a PNG) for ${options.seconds} s`)
      const mix = await drive({ ...common, phase: 'mix', seconds: options.seconds, runId: `${runId}-m` })
      phases = { add, mix }
      if (options.rate > 0) {
        options.log(`${target}: phase 3 (the mix at ${options.rate} req/s) for ${options.seconds} s`)
        fixedRate = await drive({ ...common, phase: 'mix', seconds: options.seconds, runId: `${runId}-r`, rate: options.rate })
      }
    } finally {
      const code = await server.stop()
      if (code !== 0) options.log(`${target}: exited with code ${String(code)}`)
    }
    let profile: string | null = null
    if (options.cpuProfDir !== null) {
      const after = await readdir(options.cpuProfDir)
      const fresh = after.filter((name) => name.endsWith('.cpuprofile') && !profilesBefore.includes(name))
      profile = fresh.length > 0 ? join(options.cpuProfDir, fresh[0]!) : null
    }
    return { phases, fixedRate, warmupOk, storedEvents: target === 'service' ? await countOrderEvents(join(dataDir, 'events.sqlite')) : null, profile }
  } finally {
    await rm(dataDir, { recursive: true, force: true })
  }
}

async function countOrderEvents(path: string): Promise<number> {
  const store = await openSqliteEventStore({ path })
  try {
    let count = 0
    let after = null
    for (;;) {
      const batch = await store.readAll({ after, maxCount: 5000, categories: ['order'] })
      if (batch.length === 0) return count
      count += batch.length
      after = batch[batch.length - 1]!.position
    }
  } finally {
    await store.close()
  }
}
