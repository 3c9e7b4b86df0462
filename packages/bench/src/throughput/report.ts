import type { BenchFigures, MeasuredPhase, TargetFigures } from './run-bench.js'
import type { HotFunction } from './profile-summary.js'

const PHASE_NAMES = { add: 'phase 1: ORDER_ADD', mix: 'phase 2: add/update/complete+PNG' } as const
/** The service's goals: its own CPU per accepted event, in every phase, and its p99 latency. */
const CPU_GOAL_US = 120
const P99_GOAL_MS = 50
const NAMES = { service: '  service (waybill serve)', bare: '  bare ceiling (Fastify, no store)', ceiling: '  same app, streams in memory' } as const

/** The server's CPU per answered request, in µs; null when it was not read or nothing was answered. */
export function cpuPerRequestUs(f: MeasuredPhase): number | null {
  return f.serverCpu === null || f.total === 0 ? null : (f.serverCpu.seconds * 1e6) / f.total
}

const cpuRatio = (f: MeasuredPhase, bare: MeasuredPhase | undefined): number | null => {
  const mine = cpuPerRequestUs(f)
  const base = bare === undefined ? null : cpuPerRequestUs(bare)
  return mine === null || base === null ? null : mine / base
}
const orDash = (n: number | null, digits: number): string => (n === null ? '–' : n.toFixed(digits))
const row = (cells: readonly string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(34) : c.padStart(12))).join('')
const figures = (name: string, f: MeasuredPhase, bare: MeasuredPhase | undefined): string =>
  row([name, f.requestsPerSecond.toFixed(0), f.p50Ms.toFixed(1), f.p99Ms.toFixed(1), String(f.non2xx), String(f.errors + f.timeouts),
    orDash(cpuPerRequestUs(f), 1), orDash(cpuRatio(f, bare), 2)])
const goal = (met: boolean): string => (met ? 'met' : 'NOT met')

/** Acknowledged events (warm-up included) of the service. */
export function acknowledged(service: TargetFigures): number {
  return service.warmupOk + service.phases.add.ok + service.phases.mix.ok + (service.fixedRate?.ok ?? 0)
}

/**
 * The figures as a plain-text table: the service, the bare ceiling and the same app in memory,
 * each with its own CPU per answered request and that CPU's ratio to the bare ceiling's (the
 * service's goal is set on its CPU per request), the req/s ratios beside them, and a
 * `load average` line, since the machine's other work weighs on every figure.
 */
export function formatReport({ service, bare, ceiling }: BenchFigures, connections: number, loadAverage: readonly number[]): string {
  const lines: string[] = []
  lines.push(`waybill bench: ${connections} connections, HTTPS, JSON bodies; every 2xx fsync-durable (SQLite WAL, synchronous=FULL, group commit)`)
  lines.push('server CPU: user + system of each server\'s process and its children, every thread, from /proc, from quiet before the load to quiet after it, per answered request; the load generator (the bench\'s own process) not counted')
  lines.push(`load average at the end: ${loadAverage.map((n) => n.toFixed(2)).join(', ')}`)
  lines.push(row(['', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'CPU µs/req', 'CPU ×bare']))
  for (const phase of ['add', 'mix'] as const) {
    lines.push(PHASE_NAMES[phase])
    const s = service.phases[phase]
    const b = bare?.phases[phase]
    lines.push(figures(NAMES.service, s, b))
    if (b !== undefined) lines.push(figures(NAMES.bare, b, b))
    if (ceiling !== null) lines.push(figures(NAMES.ceiling, ceiling.phases[phase], b))
    if (b !== undefined) lines.push(`  ratio service/bare ceiling: CPU per request ${orDash(cpuRatio(s, b), 2)}, req/s ${(s.requestsPerSecond / b.requestsPerSecond).toFixed(2)}`)
    if (ceiling !== null) {
      const c = ceiling.phases[phase]
      lines.push(`  ratio service/same app in memory: CPU per request ${orDash(cpuRatio(s, c), 2)}, req/s ${(s.requestsPerSecond / c.requestsPerSecond).toFixed(2)} (the store's cost alone)`)
    }
    lines.push(goals(s))
    lines.push(afterLoad([['service', s], ['bare ceiling', b], ['same app in memory', ceiling?.phases[phase]]]))
    const odd = Object.entries(s.statusCounts).filter(([status]) => !status.startsWith('2'))
    if (odd.length > 0) lines.push(`  service non-2xx by status: ${odd.map(([k, v]) => `${k}×${v}`).join(', ')}`)
  }
  if (service.fixedRate !== null) {
    lines.push(`phase 3: the mix at a fixed rate (open loop, below saturation)`)
    const b = bare?.fixedRate ?? undefined
    lines.push(figures(NAMES.service, service.fixedRate, b))
    if (b !== undefined) lines.push(figures(NAMES.bare, b, b))
    if (ceiling?.fixedRate != null) lines.push(figures(NAMES.ceiling, ceiling.fixedRate, b))
    lines.push(`  service p99 at ${service.fixedRate.requestsPerSecond.toFixed(0)} req/s: ${service.fixedRate.p99Ms.toFixed(1)} ms (goal ≤ ${P99_GOAL_MS} ms: ${goal(service.fixedRate.p99Ms <= P99_GOAL_MS)})`)
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

/** The service's goals in a saturated phase: its CPU per accepted event, and its p99. */
function goals(s: MeasuredPhase): string {
  const cpu = cpuPerRequestUs(s)
  const cpuVerdict = cpu === null ? 'not read' : `${cpu.toFixed(0)} µs (goal ≤ ${CPU_GOAL_US} µs: ${goal(cpu <= CPU_GOAL_US)})`
  return `  service CPU per request ${cpuVerdict}; p99 ${s.p99Ms.toFixed(1)} ms (goal ≤ ${P99_GOAL_MS} ms: ${goal(s.p99Ms <= P99_GOAL_MS)})`
}

/** The CPU each server spent once the load had stopped (counted above): work it still owed, such as the projector catching up. */
function afterLoad(servers: readonly (readonly [string, MeasuredPhase | undefined])[]): string {
  const spent = servers.flatMap(([name, f]) => (f?.serverCpu == null ? [] : [`${name} ${f.serverCpu.afterLoadSeconds.toFixed(2)} s`]))
  return `  server CPU after the load stopped (included above): ${spent.length === 0 ? 'not read' : spent.join(', ')}`
}

export function formatProfile(target: string, path: string, hot: readonly HotFunction[]): string {
  return [`CPU profile of the ${target}: ${path}`, 'top self time:',
    ...hot.map((f) => `  ${(f.share * 100).toFixed(1).padStart(5)}%  ${f.selfMs.toFixed(0).padStart(7)} ms  ${f.name}  ${f.where}`)].join('\n')
}
