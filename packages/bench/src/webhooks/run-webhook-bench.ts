import { spawn } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { drive } from '../throughput/drive.js'
import { countOrderEvents, WAYBILL_MAIN, type MeasuredPhase } from '../throughput/run-bench.js'
import { measureServerCpu } from '../throughput/server-cpu.js'
import { startServerProcess, type ServerProcess } from '../throughput/server-process.js'
import type { Phase } from '../throughput/workload.js'
import { startDeadReceiver } from './dead-receiver.js'
import type { EndpointFigures, ServiceRuns, WebhookBenchFigures } from './webhook-report.js'

export interface WebhookBenchOptions {
  readonly rounds: number
  readonly seconds: number
  readonly warmupSeconds: number
  readonly connections: number
  readonly log: (line: string) => void
}

interface Service {
  readonly name: 'plain' | 'dead'
  readonly dataDir: string
  readonly env: Record<string, string>
  readonly server: ServerProcess
  readonly key: string
  readonly runs: Record<Phase, MeasuredPhase[]>
  acknowledged: number
}

/** The longest wait after the last phase for the dead endpoint's queue to take in the last events. */
const SETTLE_MS = 30_000

/**
 * Two `waybill serve` processes on fresh data directories, alike but for one thing: the second has
 * a webhook endpoint (added with `waybill webhooks add` before it starts) whose receiver takes
 * every request and never answers, with the default settings (10 s timeout, 4 in flight, the
 * three-day schedule). Each phase runs on one and then the other, `rounds` times, the order
 * alternating from round to round, so the machine's other work and its drift weigh on both alike.
 * After the last phase, the queue is given time to take in the last events, then both stop.
 */
export async function runWebhookBench(options: WebhookBenchOptions): Promise<WebhookBenchFigures> {
  const receiver = await startDeadReceiver()
  const services: Service[] = []
  try {
    services.push(await start('plain', null, options))
    services.push(await start('dead', receiver.url, options))
    const common = (s: Service) => ({ url: s.server.httpsUrl, key: s.key, connections: options.connections })
    const runId = (s: Service, what: string) => `bench-${s.name}-${what}-${Date.now().toString(36)}`
    if (options.warmupSeconds > 0) {
      for (const s of services) {
        options.log(`${s.name}: warming up for ${options.warmupSeconds} s`)
        s.acknowledged += (await drive({ ...common(s), phase: 'mix', seconds: options.warmupSeconds, runId: runId(s, 'w') })).ok
      }
    }
    for (let round = 0; round < options.rounds; round += 1) {
      for (const phase of ['add', 'mix'] as const) {
        for (const s of round % 2 === 0 ? services : [...services].reverse()) {
          options.log(`round ${round + 1}/${options.rounds}, ${s.name === 'plain' ? 'no endpoint' : 'a dead endpoint'}: phase ${phase === 'add' ? 1 : 2} for ${options.seconds} s`)
          // The server's own CPU too (measureServerCpu: from quiet before the run to quiet after it).
          const { result, cpu } = await measureServerCpu(s.server.child.pid ?? 0, () => drive({ ...common(s), phase, seconds: options.seconds, runId: runId(s, `${round}${phase}`) }))
          s.runs[phase].push({ ...result, serverCpu: cpu })
          s.acknowledged += result.ok
        }
      }
    }
    const dead = services[1] as Service
    options.log('waiting for the dead endpoint\'s queue to take in the last events')
    await settle(dead)
    const results: ServiceRuns[] = []
    for (const s of services) {
      const code = await s.server.stop()
      if (code !== 0) options.log(`${s.name}: exited with code ${String(code)}`)
      results.push({ phases: s.runs, acknowledged: s.acknowledged, storedEvents: await countOrderEvents(join(s.dataDir, 'events.sqlite')) })
    }
    const [plainRuns, deadRuns] = results as [ServiceRuns, ServiceRuns]
    return { plain: plainRuns, dead: deadRuns, endpoint: await endpointFigures(dead, receiver.requests()) }
  } finally {
    for (const s of services) {
      s.server.child.kill('SIGKILL')
      await rm(s.dataDir, { recursive: true, force: true })
    }
    await receiver.close()
  }
}

async function start(name: Service['name'], endpointUrl: string | null, options: WebhookBenchOptions): Promise<Service> {
  const dataDir = await mkdtemp(join(tmpdir(), `waybill-bench-webhooks-${name}-`))
  const env = { WAYBILL_DATA_DIR: dataDir, LOG_LEVEL: 'warn', WAYBILL_RATE_LIMIT: '1000000000', WAYBILL_RATE_LIMIT_PER_ADDRESS: '1000000000' }
  if (endpointUrl !== null) {
    const added = await waybill(['webhooks', 'add', endpointUrl], env)
    options.log(`dead: endpoint ${added.split('\n')[0] ?? ''} → ${endpointUrl}`)
  }
  const server = await startServerProcess(WAYBILL_MAIN, ['serve'], env)
  const key = (await readFile(join(dataDir, 'test-api-key'), 'utf8')).trim()
  return { name, dataDir, env, server, key, runs: { add: [], mix: [] }, acknowledged: 0 }
}

/** Runs `waybill <args>` on a data dir; its stdout, or a rejection with its stderr. */
function waybill(args: readonly string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WAYBILL_MAIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString() })
    child.stderr.on('data', (chunk: Buffer) => { err += chunk.toString() })
    child.on('error', reject)
    child.on('exit', (code) => { if (code === 0) resolve(out); else reject(new Error(`waybill ${args.join(' ')}: exit ${String(code)}: ${err}`)) })
  })
}

/** The endpoint's backlog from `waybill webhooks list --json`. */
async function backlog(s: Service): Promise<number> {
  const [endpoint] = JSON.parse(await waybill(['webhooks', 'list', '--json'], s.env)) as Array<{ backlog: number }>
  return endpoint?.backlog ?? 0
}

/** Waits until the backlog stops growing (or `SETTLE_MS`): the queue has read the log to its end. */
async function settle(s: Service): Promise<void> {
  const deadline = Date.now() + SETTLE_MS
  let last = -1
  for (let now = await backlog(s); now !== last && Date.now() < deadline; now = await backlog(s)) {
    last = now
    await sleep(1_000)
  }
}

async function endpointFigures(s: Service, received: number): Promise<EndpointFigures> {
  const attempts: Record<string, number> = {}
  const log = JSON.parse(await waybill(['webhooks', 'deliveries', '--json', '--limit', '10000'], s.env)) as Array<{ outcome: string }>
  for (const attempt of log) attempts[attempt.outcome] = (attempts[attempt.outcome] ?? 0) + 1
  return { backlog: await backlog(s), attempts, received }
}
