import type { PhaseFigures } from '../throughput/drive.js'
import type { MeasuredPhase } from '../throughput/run-bench.js'
import type { Phase } from '../throughput/workload.js'

/** One service's runs of each phase, in the order they ran. */
export interface ServiceRuns {
  readonly phases: Readonly<Record<Phase, readonly MeasuredPhase[]>>
  /** 2xx answers over the whole bench (warm-up included). */
  readonly acknowledged: number
  /** Order events in its store after the run. */
  readonly storedEvents: number
}

/** What the dead endpoint's deliverer did, read with `waybill webhooks list` and `deliveries` after the run. */
export interface EndpointFigures {
  /** Messages queued and not delivered: every event it was due, since nothing is ever delivered. */
  readonly backlog: number
  /** Attempts by outcome. */
  readonly attempts: Readonly<Record<string, number>>
  /** Requests the receiver took in. */
  readonly received: number
}

export interface WebhookBenchFigures {
  readonly plain: ServiceRuns
  readonly dead: ServiceRuns
  readonly endpoint: EndpointFigures
}

const PHASE_NAMES: Readonly<Record<Phase, string>> = { add: 'phase 1: ORDER_ADD', mix: 'phase 2: add/update/complete+PNG' }

function median(values: readonly number[]): number {
  const half = values.length / 2
  // The middle value, or the two middle values of an even count.
  const middle = [...values].sort((a, b) => a - b).slice(Math.ceil(half) - 1, Math.floor(half) + 1)
  return middle.reduce((sum, value) => sum + value, 0) / middle.length
}

/** How far a service's own runs of one phase spread: (max − min) / median. */
function spread(values: readonly number[]): number {
  return (Math.max(...values) - Math.min(...values)) / median(values)
}

/** The server's CPU over every run of a phase it was read for, per request answered in those runs; null when it was read for none. */
function cpuPerRequest(runs: readonly MeasuredPhase[]): number | null {
  const read = runs.flatMap((run) => run.serverCpu === null ? [] : [{ seconds: run.serverCpu.seconds, answered: run.total }])
  const answered = read.reduce((sum, run) => sum + run.answered, 0)
  return answered === 0 ? null : read.reduce((sum, run) => sum + run.seconds, 0) / answered * 1e6
}

const percent = (ratio: number): string => `${(ratio * 100).toFixed(1)}%`
const signed = (ratio: number): string => `${ratio >= 0 ? '+' : ''}${percent(ratio)}`

/**
 * The bench's verdict, phase by phase: each service's req/s in every round and their median, the
 * two services' ratio in each round (run back to back), the run-to-run noise (the wider of the two services' own spreads) and the difference of the
 * medians, which is within the noise or not; then whether every acknowledged event was stored
 * and queued for the dead endpoint, and what its deliverer did.
 */
export function formatWebhookReport({ plain, dead, endpoint }: WebhookBenchFigures, connections: number, loadAverage: readonly number[]): string {
  const lines = [
    `waybill bench:webhooks: the ingress without a webhook endpoint, and with one whose receiver never answers; ${connections} connections, HTTPS`,
    `load average at the end: ${loadAverage.map((n) => n.toFixed(2)).join(', ')}`,
  ]
  let within = true
  for (const phase of ['add', 'mix'] as const) {
    const a = plain.phases[phase].map((f) => f.requestsPerSecond)
    const b = dead.phases[phase].map((f) => f.requestsPerSecond)
    const noise = Math.max(spread(a), spread(b))
    const difference = (median(b) - median(a)) / median(a)
    within &&= Math.abs(difference) <= noise
    const runs = (values: readonly number[]): string => values.map((v) => v.toFixed(0)).join(', ')
    const p99 = (runs: readonly PhaseFigures[]): string => median(runs.map((f) => f.p99Ms)).toFixed(1)
    lines.push(PHASE_NAMES[phase])
    lines.push(`  no endpoint:           ${runs(a)} req/s (median ${median(a).toFixed(0)}, p99 median ${p99(plain.phases[phase])} ms)`)
    lines.push(`  a dead endpoint:       ${runs(b)} req/s (median ${median(b).toFixed(0)}, p99 median ${p99(dead.phases[phase])} ms)`)
    // Each round ran the two back to back: their ratio there is least moved by the machine's drift.
    // (A round the other service did not finish has no pair.)
    const paired = a.flatMap((value, round) => b.slice(round, round + 1).map((other) => other / value))
    lines.push(`  per round, dead / none: ${paired.map((r) => r.toFixed(2)).join(', ')} (median ${median(paired).toFixed(2)})`)
    lines.push(`  difference of the medians ${signed(difference)}; run-to-run noise ${percent(noise)}: `
      + (Math.abs(difference) <= noise ? 'within the noise' : 'BEYOND THE NOISE'))
    const [none, withDead] = [cpuPerRequest(plain.phases[phase]), cpuPerRequest(dead.phases[phase])]
    lines.push(none === null || withDead === null ? '  server CPU per answered request: not read (no /proc)'
      : `  server CPU per answered request (every thread, its catching up included): no endpoint ${none.toFixed(0)} µs, `
        + `a dead endpoint ${withDead.toFixed(0)} µs (${signed((withDead - none) / none)})`)
  }
  for (const [name, runs] of [['no endpoint', plain], ['a dead endpoint', dead]] as const) {
    const non2xx = Object.values(runs.phases).flat().reduce((sum, f) => sum + f.non2xx + f.errors + f.timeouts, 0)
    lines.push(`${name}: ${runs.acknowledged} events acknowledged, ${runs.storedEvents} stored${runs.storedEvents < runs.acknowledged ? ': ACKNOWLEDGED EVENTS MISSING' : ''}; `
      + `${non2xx} answers not 2xx or errors`)
  }
  const attempts = Object.entries(endpoint.attempts).map(([outcome, n]) => `${n} ${outcome}`).join(', ') || 'none'
  lines.push(`the dead endpoint: ${endpoint.backlog} of ${dead.storedEvents} events queued${endpoint.backlog < dead.storedEvents ? ' (ITS QUEUE FELL BEHIND)' : ''}; `
    + `attempts ${attempts}; the receiver took ${endpoint.received} requests and answered none`)
  lines.push(within ? 'verdict: a receiver that never answers leaves the ingress\'s throughput within the run-to-run noise'
    : 'verdict: THE INGRESS\'S THROUGHPUT MOVED BEYOND THE RUN-TO-RUN NOISE with a receiver that never answers')
  return lines.join('\n')
}
