import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { openSqliteEventStore } from '@waybill/event-store'
import { drive, type DriveOptions, type PhaseFigures } from './drive.js'
import type { Phase } from './workload.js'
import { measureServerCpu, type ServerCpu } from './server-cpu.js'
import { startServerProcess, type ServerProcess } from './server-process.js'

type Target = 'service' | 'bare' | 'ceiling'

/** The built `waybill` command: it sits beside the CLI package's entry in its dist/. */
export const WAYBILL_MAIN = fileURLToPath(new URL('./main.js', import.meta.resolve('@waybill/cli')))
const CEILING_MAIN = fileURLToPath(new URL('../ceiling/main.js', import.meta.url))
const BARE_MAIN = fileURLToPath(new URL('../bare/main.js', import.meta.url))

export interface BenchOptions {
  readonly seconds: number
  readonly warmupSeconds: number
  readonly connections: number
  /** Write a V8 CPU profile of each server process into this directory. */
  readonly cpuProfDir: string | null
  readonly log: (line: string) => void
  /** Run the service without its projector thread (`waybill serve --no-projector`). */
  readonly noProjector: boolean
  /** Rate of the fixed-rate latency phase (req/s); 0 skips it. */
  readonly rate: number
  /** Measure the service only. */
  readonly noCeiling: boolean
}

/** What one run measured: the service, the bare ceiling and the same app in memory (null with `noCeiling`). */
export interface BenchFigures {
  readonly service: TargetFigures
  readonly bare: TargetFigures | null
  readonly ceiling: TargetFigures | null
}

/** What the load generator saw of one phase, and what the server spent on it. */
export interface MeasuredPhase extends PhaseFigures {
  /** Null when the server could not be read (it ended, or no /proc: Linux only). */
  readonly serverCpu: ServerCpu | null
}

export interface TargetFigures {
  readonly phases: Readonly<Record<Phase, MeasuredPhase>>
  /** The mix at a fixed request rate, below saturation: latency without queueing. */
  readonly fixedRate: MeasuredPhase | null
  /** Order events found in the store after the run (service only): at least the 2xx answers. */
  readonly storedEvents: number | null
  /** 2xx answers of the warm-up (not measured, but stored). */
  readonly warmupOk: number
  readonly profile: string | null
}

interface Running {
  readonly target: Target
  readonly dataDir: string
  readonly server: ServerProcess
  readonly key: string
  readonly runId: string
  readonly pid: number
}

/** What is measured of one target, filled in phase by phase. */
interface Tally {
  readonly phases: Partial<Record<Phase, MeasuredPhase>>
  fixedRate: MeasuredPhase | null
  warmupOk: number
}

/**
 * Starts the service (`waybill serve`), the bare ceiling (`bare/main.ts`: Fastify, a schema, a
 * constant key, nothing stored) and the same app in memory (`ceiling/main.ts`) as child processes
 * on fresh data directories, then runs each phase on one and at once on the others, so that whatever else the machine does in the meantime weighs on
 * both alike. The per-key and per-address rate limits are lifted and logging is at `warn` for all.
 * Each measured phase also reads the server's own CPU from /proc (`measureServerCpu`): the load
 * generator runs here, in the bench's process, and is not counted.
 */
export async function runBench(options: BenchOptions): Promise<BenchFigures> {
  const targets: Target[] = options.noCeiling ? ['service'] : ['service', 'bare', 'ceiling']
  const running: Running[] = []
  try {
    for (const target of targets) running.push(await start(target, options))
    const measured = running.map((r): { r: Running; tally: Tally } => ({ r, tally: { phases: {}, fixedRate: null, warmupOk: 0 } }))
    const common = (r: Running) => ({ url: r.server.httpsUrl, key: r.key, connections: options.connections })
    const measure = async (r: Running, drove: Omit<DriveOptions, 'url' | 'key' | 'connections'>): Promise<MeasuredPhase> => {
      const { result, cpu } = await measureServerCpu(r.pid, () => drive({ ...common(r), ...drove }))
      return { ...result, serverCpu: cpu }
    }
    if (options.warmupSeconds > 0) {
      for (const { r, tally } of measured) {
        options.log(`${r.target}: warming up for ${options.warmupSeconds} s`)
        tally.warmupOk = (await drive({ ...common(r), phase: 'mix', seconds: options.warmupSeconds, runId: `${r.runId}-w` })).ok
      }
    }
    for (const phase of ['add', 'mix'] as const) {
      for (const { r, tally } of measured) {
        options.log(`${r.target}: phase ${phase === 'add' ? '1 (ORDER_ADD, new orders)' : '2 (add, update, complete with a PNG)'} for ${options.seconds} s`)
        tally.phases[phase] = await measure(r, { phase, seconds: options.seconds, runId: `${r.runId}-${phase}` })
      }
    }
    if (options.rate > 0) {
      for (const { r, tally } of measured) {
        options.log(`${r.target}: phase 3 (the mix at ${options.rate} req/s) for ${options.seconds} s`)
        tally.fixedRate = await measure(r, { phase: 'mix', seconds: options.seconds, runId: `${r.runId}-r`, rate: options.rate })
      }
    }
    const results = new Map<Target, TargetFigures>()
    for (const { r, tally } of measured) {
      const code = await r.server.stop()
      if (code !== 0) options.log(`${r.target}: exited with code ${String(code)}`)
      results.set(r.target, {
        phases: tally.phases as Record<Phase, MeasuredPhase>,
        fixedRate: tally.fixedRate,
        warmupOk: tally.warmupOk,
        storedEvents: r.target === 'service' ? await countOrderEvents(join(r.dataDir, 'events.sqlite')) : null,
        profile: options.cpuProfDir === null ? null : await profileOf(options.cpuProfDir, r.pid),
      })
    }
    const service = results.get('service')
    if (service === undefined) throw new Error('the service was not measured')
    return { service, bare: results.get('bare') ?? null, ceiling: results.get('ceiling') ?? null }
  } finally {
    for (const r of running) {
      r.server.child.kill('SIGKILL')
      await rm(r.dataDir, { recursive: true, force: true })
    }
  }
}

async function start(target: Target, options: BenchOptions): Promise<Running> {
  const dataDir = await mkdtemp(join(tmpdir(), `waybill-bench-${target}-`))
  const nodeFlags = options.cpuProfDir !== null ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfDir}`] : []
  const [script, args] = target === 'ceiling' ? [CEILING_MAIN, []]
    : target === 'bare' ? [BARE_MAIN, []]
      : [WAYBILL_MAIN, options.noProjector ? ['serve', '--no-projector'] : ['serve']]
  const server = await startServerProcess(script, args, {
    WAYBILL_DATA_DIR: dataDir, LOG_LEVEL: 'warn', WAYBILL_RATE_LIMIT: '1000000000', WAYBILL_RATE_LIMIT_PER_ADDRESS: '1000000000',
  }, nodeFlags)
  const key = (await readFile(join(dataDir, 'test-api-key'), 'utf8')).trim()
  return { target, dataDir, server, key, runId: `bench-${target}-${Date.now().toString(36)}`, pid: server.child.pid ?? 0 }
}

/** The main thread's profile of process `pid` (V8 names them CPU.<date>.<time>.<pid>.<thread>.<n>). */
async function profileOf(dir: string, pid: number): Promise<string | null> {
  const names = (await readdir(dir)).filter((name) => name.endsWith('.cpuprofile') && name.split('.')[3] === String(pid))
  names.sort((a, b) => Number(a.split('.')[4]) - Number(b.split('.')[4]))
  const [first] = names
  return first === undefined ? null : join(dir, first)
}

/** The order events in a SQLite store (after its server stopped). */
export async function countOrderEvents(path: string): Promise<number> {
  const store = await openSqliteEventStore({ path })
  try {
    let count = 0
    let after = null
    for (;;) {
      const batch = await store.readAll({ after, maxCount: 5000, categories: ['order'] })
      const last = batch.at(-1)
      if (last === undefined) return count
      count += batch.length
      after = last.position
    }
  } finally {
    await store.close()
  }
}
