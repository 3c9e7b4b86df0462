import type { TargetFigures } from './run-bench.js'
import type { HotFunction } from './profile-summary.js'

const PHASE_NAMES = { add: 'phase 1: ORDER_ADD', mix: 'phase 2: add/update/complete+PNG' } as const

/** The figures as a plain-text table, service beside ceiling, with the ratio and the goals. */
export function formatReport(service: TargetFigures, ceiling: TargetFigures | null, connections: number): string {
  const lines: string[] = []
  const row = (cells: readonly string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(34) : c.padStart(12))).join('')
  lines.push(`waybill bench: ${connections} connections, HTTPS, JSON bodies; every 2xx fsync-durable (SQLite WAL, synchronous=FULL, group commit)`)
  lines.push(row(['', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors']))
  for (const phase of ['add', 'mix'] as const) {
    lines.push(PHASE_NAMES[phase])
    const s = service.phases[phase]
    lines.push(row(['  service (waybill serve)', s.requestsPerSecond.toFixed(0), s.p50Ms.toFixed(1), s.p99Ms.toFixed(1), String(s.non2xx), String(s.errors + s.timeouts)]))
    if (ceiling !== null) {
      const c = ceiling.phases[phase]
      lines.push(row(['  ceiling (no durable store)', c.requestsPerSecond.toFixed(0), c.p50Ms.toFixed(1), c.p99Ms.toFixed(1), String(c.non2xx), String(c.errors + c.timeouts)]))
      const ratio = s.requestsPerSecond / c.requestsPerSecond
      lines.push(`  ratio service/ceiling: ${ratio.toFixed(2)} (goal ≥ 0.60: ${ratio >= 0.6 ? 'met' : 'NOT met'}); service p99 ${s.p99Ms.toFixed(1)} ms (goal ≤ 20 ms: ${s.p99Ms <= 20 ? 'met' : 'NOT met'})`)
    }
    const odd = Object.entries(s.statusCounts).filter(([status]) => !status.startsWith('2'))
    if (odd.length > 0) lines.push(`  service non-2xx by status: ${odd.map(([k, v]) => `${k}×${v}`).join(', ')}`)
  }
  if (service.fixedRate !== null) {
    lines.push(`phase 3: the mix at a fixed rate (open loop, below saturation)`)
    for (const [name, f] of [['  service (waybill serve)', service.fixedRate], ['  ceiling (no durable store)', ceiling?.fixedRate ?? null]] as const) {
      if (f !== null) lines.push(row([name, f.requestsPerSecond.toFixed(0), f.p50Ms.toFixed(1), f.p99Ms.toFixed(1), String(f.non2xx), String(f.errors + f.timeouts)]))
    }
    lines.push(`  service p99 at ${service.fixedRate.requestsPerSecond.toFixed(0)} req/s: ${service.fixedRate.p99Ms.toFixed(1)} ms (goal ≤ 20 ms: ${service.fixedRate.p99Ms <= 20 ? 'met' : 'NOT met'})`)
  }
  if (service.storedEvents !== null) {
    const acknowledged = service.warmupOk + service.phases.add.ok + service.phases.mix.ok + (service.fixedRate?.ok ?? 0)
    // Answers still in flight when a phase's clock ran out are stored but not counted as 2xx.
    const verdict = service.storedEvents < acknowledged ? 'ACKNOWLEDGED EVENTS MISSING'
      : `every acknowledged event stored; ${service.storedEvents - acknowledged} more from requests cut off when a phase ended`
    lines.push(`service: ${acknowledged} events acknowledged (warm-up included), ${service.storedEvents} in the store after the run: ${verdict}`)
  }
  return lines.join('\n')
}

export function formatProfile(target: string, path: string, hot: readonly HotFunction[]): string {
  return [`CPU profile of the ${target}: ${path}`, 'top self time:',
    ...hot.map((f) => `  ${(f.share * 100).toFixed(1).padStart(5)}%  ${f.selfMs.toFixed(0).padStart(7)} ms  ${f.name}  ${f.where}`)].join('\n')
}
