import t from 'tap'
import type { PhaseFigures } from '../../src/throughput/drive.js'
import { formatProfile, formatReport } from '../../src/throughput/report.js'
import type { TargetFigures } from '../../src/throughput/run-bench.js'

const phase = (requestsPerSecond: number, ok: number, statusCounts: Record<string, number> = { 201: ok }): PhaseFigures =>
  ({ requestsPerSecond, p50Ms: 2, p99Ms: 10, total: ok, non2xx: 0, errors: 0, timeouts: 0, ok, statusCounts })
const target = (add: number, mix: number, storedEvents: number | null): TargetFigures =>
  ({ phases: { add: phase(add, 100), mix: phase(mix, 100) }, fixedRate: null, storedEvents, warmupOk: 10, profile: null })

t.test('the report: three servers, both ratios, the goals against the bare ceiling, the load average, the store check', async (t) => {
  const text = formatReport({ service: target(600, 400, 210), bare: target(1000, 1000, null), ceiling: target(800, 500, null) }, 64, [1.5, 2, 3])
  t.match(text, /load average at the end: 1\.50, 2\.00, 3\.00/)
  t.match(text, /bare ceiling \(Fastify, no store\)\s+1000/)
  t.match(text, /ratio service\/bare ceiling: 0\.60 \(goal ≥ 0\.60: met\)/)
  t.match(text, /ratio service\/bare ceiling: 0\.40 \(goal ≥ 0\.50: NOT met\)/)
  t.match(text, /ratio service\/same app in memory: 0\.75/)
  t.match(text, /210 events acknowledged .* every acknowledged event stored/)
  t.match(formatReport({ service: target(1, 1, 5), bare: null, ceiling: null }, 1, [0, 0, 0]), /ACKNOWLEDGED EVENTS MISSING/)
})

t.test('the report: the fixed-rate phase for every server, with the service p99 against its goal; a profile\'s hot functions', async (t) => {
  const service = { ...target(600, 400, null), fixedRate: { ...phase(300, 100), p99Ms: 80 } }
  const text = formatReport({ service, bare: { ...target(1000, 1000, null), fixedRate: phase(300, 100) }, ceiling: target(800, 500, null) }, 64, [0, 0, 0])
  t.match(text, /phase 3: the mix at a fixed rate/)
  t.match(text, /bare ceiling \(Fastify, no store\)\s+300/)
  t.match(text, /service p99 at 300 req\/s: 80\.0 ms \(goal ≤ 50 ms: NOT met\)/)
  const profile = formatProfile('service', '/tmp/p.cpuprofile', [{ name: 'fold', where: 'fold.ts:3', selfMs: 120, share: 0.25 }])
  t.match(profile, /CPU profile of the service: \/tmp\/p\.cpuprofile/)
  t.match(profile, /25\.0%\s+120 ms {2}fold {2}fold\.ts:3/)
})

t.test('the report: non-2xx by status, a p99 over its goal, a fixed rate met without a bare ceiling, its events counted as acknowledged', async (t) => {
  const slow = { ...phase(600, 90, { 201: 90, 503: 10 }), p99Ms: 80 }
  const service = { phases: { add: slow, mix: phase(400, 100) }, fixedRate: phase(300, 50), storedEvents: 250, warmupOk: 10, profile: null }
  const text = formatReport({ service, bare: null, ceiling: { ...target(800, 500, null), fixedRate: phase(300, 50) } }, 64, [0, 0, 0])
  t.match(text, /service non-2xx by status: 503×10/)
  t.notMatch(text, /ratio service\/bare ceiling/, 'no ratio without the bare ceiling')
  t.match(text, /service p99 at 300 req\/s: 10\.0 ms \(goal ≤ 50 ms: met\)/)
  t.match(text, /same app, streams in memory\s+300/)
  t.match(text, /250 events acknowledged .* every acknowledged event stored; 0 more/, 'warm-up, both phases and the fixed rate: 10 + 90 + 100 + 50')
  const overGoal = formatReport({ service: { ...service, phases: { add: slow, mix: slow } }, bare: target(1000, 1000, null), ceiling: null }, 64, [0, 0, 0])
  t.match(overGoal, /service p99 80\.0 ms \(goal ≤ 50 ms: NOT met\)/)
})
