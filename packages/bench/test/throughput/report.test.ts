import t from 'tap'
import { cpuPerRequestUs, formatProfile, formatReport } from '../../src/throughput/report.js'
import type { MeasuredPhase, TargetFigures } from '../../src/throughput/run-bench.js'

/** A phase's figures: `ok` requests answered, each costing the server `cpuUs` µs (null: the CPU was not read). */
const phase = (requestsPerSecond: number, ok: number, statusCounts: Record<string, number> = { 201: ok }, cpuUs: number | null = 100, afterLoadSeconds = 0): MeasuredPhase => {
  const total = Object.values(statusCounts).reduce((a, b) => a + b, 0)
  return {
    requestsPerSecond, p50Ms: 2, p99Ms: 10, total, non2xx: total - ok, errors: 0, timeouts: 0, ok, statusCounts,
    serverCpu: cpuUs === null ? null : { seconds: (cpuUs * total) / 1e6, afterLoadSeconds },
  }
}
const target = (add: number, mix: number, storedEvents: number | null, cpuUs: readonly [number | null, number | null] = [100, 100]): TargetFigures =>
  ({ phases: { add: phase(add, 100, undefined, cpuUs[0]), mix: phase(mix, 100, undefined, cpuUs[1]) }, fixedRate: null, storedEvents, warmupOk: 10, profile: null })

t.test('the report: three servers, both ratios to the bare ceiling and to the same app in memory, the load average, the store check', async (t) => {
  const text = formatReport({ service: target(600, 400, 210), bare: target(1000, 1000, null), ceiling: target(800, 500, null) }, 64, [1.5, 2, 3])
  t.match(text, /load average at the end: 1\.50, 2\.00, 3\.00/)
  t.match(text, /bare ceiling \(Fastify, no store\)\s+1000/)
  t.match(text, /ratio service\/bare ceiling: CPU per request 1\.00, req\/s 0\.60\n/)
  t.match(text, /ratio service\/bare ceiling: CPU per request 1\.00, req\/s 0\.40\n/)
  t.match(text, /ratio service\/same app in memory: CPU per request 1\.00, req\/s 0\.75 \(the store's cost alone\)/)
  t.match(text, /210 events acknowledged .* every acknowledged event stored/)
  t.match(formatReport({ service: target(1, 1, 5), bare: null, ceiling: null }, 1, [0, 0, 0]), /ACKNOWLEDGED EVENTS MISSING/)
})

t.test('the report: each server\'s own CPU per request, its ratio to the bare ceiling\'s, the CPU goal, and what was spent after the load', async (t) => {
  const service = target(600, 400, 210, [265, 110])
  const bare = target(1000, 1000, null, [35, 50])
  const ceiling = target(800, 500, null, [220, 100])
  const withTail = { ...service, phases: { ...service.phases, add: phase(600, 100, undefined, 265, 0.5) } }
  const text = formatReport({ service: withTail, bare, ceiling }, 64, [0, 0, 0])
  t.match(text, /server CPU: user \+ system of each server's process and its children, every thread, from \/proc.* the load generator .* not counted/)
  t.match(text, /\n\s+req\/s\s+p50 ms\s+p99 ms\s+non-2xx\s+errors\s+CPU µs\/req\s+CPU ×bare\n/, 'the columns')
  const [add = '', mix = ''] = text.split('phase 2:')
  t.match(add, /service \(waybill serve\)\s+600\s+2\.0\s+10\.0\s+0\s+0\s+265\.0\s+7\.57\n/, 'the service: 265 µs, 265 / 35 = 7.57 times the bare ceiling\'s')
  t.match(add, /bare ceiling \(Fastify, no store\)\s+1000\s+2\.0\s+10\.0\s+0\s+0\s+35\.0\s+1\.00\n/, 'the bare ceiling against itself')
  t.match(add, /same app, streams in memory\s+800\s+2\.0\s+10\.0\s+0\s+0\s+220\.0\s+6\.29\n/, 'the same app in memory against the bare ceiling')
  t.match(add, /ratio service\/bare ceiling: CPU per request 7\.57, req\/s 0\.60\n/)
  t.match(add, /ratio service\/same app in memory: CPU per request 1\.20, req\/s 0\.75/, '265 / 220')
  t.match(add, /service CPU per request 265 µs \(goal ≤ 120 µs: NOT met\); p99 10\.0 ms \(goal ≤ 50 ms: met\)/)
  t.match(add, /server CPU after the load stopped \(included above\): service 0\.50 s, bare ceiling 0\.00 s, same app in memory 0\.00 s/)
  t.match(mix, /service \(waybill serve\)\s+400\s+2\.0\s+10\.0\s+0\s+0\s+110\.0\s+2\.20\n/)
  t.match(mix, /service CPU per request 110 µs \(goal ≤ 120 µs: met\)/)
  t.equal(cpuPerRequestUs(phase(1, 0, {}, 100)), null, 'no request answered: no figure')
  t.equal(cpuPerRequestUs(phase(1, 4, { 201: 3, 503: 1 }, 250)), 250, 'every answered request counts, refused ones too')
})

t.test('the report: CPU not read (no /proc, or the server ended) is a dash, never a figure', async (t) => {
  const text = formatReport({ service: target(600, 400, null, [null, 90]), bare: target(1000, 1000, null, [35, null]), ceiling: null }, 64, [0, 0, 0])
  const [add = '', mix = ''] = text.split('phase 2:')
  t.match(add, /service \(waybill serve\)\s+600\s+2\.0\s+10\.0\s+0\s+0\s+–\s+–\n/)
  t.match(add, /ratio service\/bare ceiling: CPU per request –, req\/s 0\.60/)
  t.match(add, /service CPU per request not read; p99/)
  t.match(add, /after the load stopped \(included above\): bare ceiling 0\.00 s\n/)
  t.match(mix, /service \(waybill serve\)\s+400\s+2\.0\s+10\.0\s+0\s+0\s+90\.0\s+–\n/, 'no ratio to a bare ceiling not read')
  t.match(mix, /bare ceiling \(Fastify, no store\)\s+1000\s+2\.0\s+10\.0\s+0\s+0\s+–\s+–\n/)
  const alone = formatReport({ service: target(600, 400, null, [null, null]), bare: null, ceiling: null }, 64, [0, 0, 0])
  t.match(alone, /after the load stopped \(included above\): not read\n/)
  t.match(alone, /service \(waybill serve\)\s+600\s+2\.0\s+10\.0\s+0\s+0\s+–\s+–\n/, 'neither figure')
})

t.test('the report: the fixed-rate phase for every server, with the service p99 against its goal; a profile\'s hot functions', async (t) => {
  const service = { ...target(600, 400, null), fixedRate: { ...phase(300, 100, undefined, 150), p99Ms: 80 } }
  const text = formatReport({ service, bare: { ...target(1000, 1000, null), fixedRate: phase(300, 100, undefined, 30) }, ceiling: target(800, 500, null) }, 64, [0, 0, 0])
  t.match(text, /phase 3: the mix at a fixed rate/)
  t.match(text, /bare ceiling \(Fastify, no store\)\s+300/)
  const [, fixed = ''] = text.split('phase 3:')
  t.match(fixed, /service \(waybill serve\)\s+300\s+2\.0\s+80\.0\s+0\s+0\s+150\.0\s+5\.00\n/, 'its CPU against the bare ceiling\'s at the same rate')
  t.notMatch(fixed, /same app, streams in memory/, 'a server not run at the fixed rate has no row')
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
  t.match(text, /service CPU per request 100 µs \(goal ≤ 120 µs: met\); p99 80\.0 ms \(goal ≤ 50 ms: NOT met\)/, 'the goals without a bare ceiling')
  const overGoal = formatReport({ service: { ...service, phases: { add: slow, mix: slow } }, bare: target(1000, 1000, null), ceiling: null }, 64, [0, 0, 0])
  t.match(overGoal, /p99 80\.0 ms \(goal ≤ 50 ms: NOT met\)/)
})
