import t from 'tap'
import type { MeasuredPhase } from '../../src/throughput/run-bench.js'
import { formatWebhookReport, type ServiceRuns } from '../../src/webhooks/webhook-report.js'

const run = (requestsPerSecond: number, p99Ms = 20, cpuSeconds: number | null = 0.02): MeasuredPhase => ({
  requestsPerSecond, p50Ms: 5, p99Ms, total: 100, ok: 100, non2xx: 0, errors: 0, timeouts: 0, statusCounts: { 201: 100 },
  serverCpu: cpuSeconds === null ? null : { seconds: cpuSeconds, afterLoadSeconds: 0 },
})
const runs = (add: readonly number[], mix: readonly number[], storedEvents = 1000, acknowledged = 1000, cpuSeconds: number | null = 0.02): ServiceRuns =>
  ({ phases: { add: add.map((r) => run(r, 20, cpuSeconds)), mix: mix.map((r) => run(r, 30, cpuSeconds)) }, acknowledged, storedEvents })
const endpoint = { backlog: 1000, attempts: { timeout: 4 }, received: 8 }

t.test('within the noise: each run, the medians, the noise as the wider spread, the events stored and queued', async (t) => {
  const text = formatWebhookReport({ plain: runs([1000, 900, 1100], [500, 520]), dead: runs([950, 1000, 1050], [510, 530], 1000, 1000, 0.022), endpoint }, 64, [1, 2, 3])
  t.match(text, /load average at the end: 1\.00, 2\.00, 3\.00/)
  t.match(text, /phase 1: ORDER_ADD\n {2}no endpoint: +1000, 900, 1100 req\/s \(median 1000, p99 median 20\.0 ms\)\n {2}a dead endpoint: +950, 1000, 1050 req\/s \(median 1000/)
  t.match(text, /per round, dead \/ none: 0\.95, 1\.11, 0\.95 \(median 0\.95\)\n {2}difference of the medians \+0\.0%; run-to-run noise 20\.0%: within the noise/)
  t.match(text, /phase 2: add\/update\/complete\+PNG\n {2}no endpoint: +500, 520 req\/s \(median 510, p99 median 30\.0 ms\)/)
  t.match(text, /difference of the medians \+2\.0%; run-to-run noise 3\.9%: within the noise/)
  t.match(text, /within the noise\n {2}server CPU per answered request \(every thread, its catching up included\): no endpoint 200 µs, a dead endpoint 220 µs \(\+10\.0%\)\nphase 2/)
  t.match(text, /no endpoint: 1000 events acknowledged, 1000 stored; 0 answers not 2xx or errors/)
  t.match(text, /the dead endpoint: 1000 of 1000 events queued; attempts 4 timeout; the receiver took 8 requests and answered none/)
  t.match(text, /verdict: a receiver that never answers leaves the ingress's throughput within the run-to-run noise$/)
})

t.test('beyond the noise, events missing, a queue behind, no attempt: each said', async (t) => {
  // The dead endpoint's server read in one run of phase 2 only; never in phase 1.
  const slow = { ...runs([600, 610], [300, 305], 900), phases: { add: [run(600, 20, null), run(610, 20, null)], mix: [{ ...run(300, 20, null), non2xx: 2, errors: 1 }, run(305, 20, 0.015)] } }
  const text = formatWebhookReport({ plain: runs([1000, 1010], [500, 505]), dead: slow, endpoint: { backlog: 800, attempts: {}, received: 0 } }, 8, [0, 0, 0])
  t.match(text, /BEYOND THE NOISE\n {2}server CPU per answered request: not read \(no \/proc\)\nphase 2/)
  t.match(text, /no endpoint 200 µs, a dead endpoint 150 µs \(-25\.0%\)/, 'over the runs it was read for')
  t.match(text, /difference of the medians -39\.8%; run-to-run noise 1\.7%: BEYOND THE NOISE/)
  t.match(text, /a dead endpoint: 1000 events acknowledged, 900 stored: ACKNOWLEDGED EVENTS MISSING; 3 answers not 2xx or errors/)
  t.match(text, /800 of 900 events queued \(ITS QUEUE FELL BEHIND\); attempts none/)
  t.match(text, /verdict: THE INGRESS'S THROUGHPUT MOVED BEYOND THE RUN-TO-RUN NOISE/)
})
