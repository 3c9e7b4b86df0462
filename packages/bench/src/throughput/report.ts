import type { BenchFigures, TargetFigures } from './run-bench.js'
import type { HotFunction } from './profile-summary.js'
import type { PhaseFigures } from './drive.js'

const PHASE_NAMES = { add: 'phase 1: ORDER_ADD', mix: 'phase 2: add/update/complete+PNG' } as const
/** The service's goals, as its ratio to the bare ceiling in each phase. */
const GOALS = { add: 0.6, mix: 0.5 } as const
const P99_GOAL_MS = 50

const row = (cells: readonly string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(34) : c.padStart(12))).join('')
const figures = (name: string, f: PhaseFigures): string =>
  row([name, f.requestsPerSecond.toFixed(0), f.p50Ms.toFixed(1), f.p99Ms.toFixed(1), String(f.non2xx), String(f.errors + f.timeouts)])

/** Acknowledged events (warm-up included) of the service. */
export function acknowledged(service: TargetFigures): number {
  return service.warmupOk + service.phases.add.ok + service.phases.mix.ok + (service.fixedRate?.ok ?? 0)
}

/**
 * The figures as a plain-text table: the service, the bare ceiling and the same app in memory,
 * with the service's ratio to each (the bare ceiling's is the one the goals are set on), and a
 * `load average` line, since the machine's other work weighs on every figure.
 */
export function formatReport({ service, bare, ceiling }: BenchFigures, connections: number, loadAverage: readonly number[]): string {
  const lines: string[] = []
  lines.push(`waybill bench: ${connections} connections, HTTPS, JSON bodies; every 2xx fsync-durable (SQLite WAL, synchronous=FULL, group commit)`)
  lines.push(`load average at the end: ${loadAverage.map((n) => n.toFixed(2)).join(', ')}`)
  lines.push(row(['', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors']))
  for (const phase of ['add', 'mix'] as const) {
    lines.push(PHASE_NAMES[phase])
    const s = service.phases[phase]
    lines.push(figures('  service (waybill serve)', s))
    if (bare !== null) lines.push(figures('  bare ceiling (Fastify, no store)', bare.phases[phase]))
    if (ceiling !== null) lines.push(figures('  same app, streams in memory', ceiling.phases[phase]))
    if (bare !== null) {
      const ratio = s.requestsPerSecond / bare.phases[phase].requestsPerSecond
      lines.push(`  ratio service/bare ceiling: ${ratio.toFixed(2)} (goal ≥ ${GOALS[phase].toFixed(2)}: ${ratio >= GOALS[phase] ? 'met' : 'NOT met'}); service p99 ${s.p99Ms.toFixed(1)} ms (goal ≤ ${P99_GOAL_MS} ms: ${s.p99Ms <= P99_GOAL_MS ? 'met' : 'NOT met'})`)
    }
    if (ceiling !== null) lines.push(`  ratio service/same app in memory: ${(s.requestsPerSecond / ceiling.phases[phase].requestsPerSecond).toFixed(2)} (the store's cost alone)`)
    const odd = Object.entries(s.statusCounts).filter(([status]) => !status.startsWith('2'))
    if (odd.length > 0) lines.push(`  service non-2xx by status: ${odd.map(([k, v]) => `${k}×${v}`).join(', ')}`)
  }
  if (service.fixedRate !== null) {
    lines.push(`phase 3: the mix at a fixed rate (open loop, below saturation)`)
    for (const [name, f] of [['  service (waybill serve)', service.fixedRate], ['  bare ceiling (Fastify, no store)', bare?.fixedRate ?? null],
      ['  same app, streams in memory', ceiling?.fixedRate ?? null]] as const) {
      if (f !== null) lines.push(figures(name, f))
    }
    lines.push(`  service p99 at ${service.fixedRate.requestsPerSecond.toFixed(0)} req/s: ${service.fixedRate.p99Ms.toFixed(1)} ms (goal ≤ ${P99_GOAL_MS} ms: ${service.fixedRate.p99Ms <= P99_GOAL_MS ? 'met' : 'NOT met'})`)
  }
  if (service.storedEvents !== null) {
    const acked = acknowledged(service)
    // Answers still in flight when a phase's clock ran out are stored but not counted as 2xx.
    const verdict = service.storedEvents < acked ? 'ACKNOWLEDGED EVENTS MISSING'
      : `every acknowledged event stored; ${service.storedEvents - acked} more from requests cut off when a phase ended`
    lines.push(`service: ${acked} events acknowledged (warm-up included), ${service.storedEvents} in the store after the run: ${verdict}`)
  }
  return lines.join('\n')
}

export function formatProfile(target: string, path: string, hot: readonly HotFunction[]): string {
  return [`CPU profile of the ${target}: ${path}`, 'top self time:',
    ...hot.map((f) => `  ${(f.share * 100).toFixed(1).padStart(5)}%  ${f.selfMs.toFixed(0).padStart(7)} ms  ${f.name}  ${f.where}`)].join('\n')
}
