import t from 'tap'
import { READS, type ReadName } from '../../src/scale/read-targets.js'
import type { ReadFigures } from '../../src/scale/read-load.js'
import { compare, formatScaleReport, ingestCpuUs, type StoreFigures } from '../../src/scale/scale-report.js'

/** A store's figures: every read at p50/p99 (ms), the ingest at `cpuUs` µs per event (null: not read). */
const store = (events: number, p99Ms: number, cpuUs: number | null, changes: Partial<Record<ReadName, Partial<ReadFigures>>> = {}): StoreFigures => ({
  events,
  reads: Object.fromEntries(READS.map((read) => [read, { requests: 100, p50Ms: p99Ms / 2, p99Ms, failed: 0, cpuUs: p99Ms * 100, ...changes[read] }])) as Record<ReadName, ReadFigures>,
  ingest: { accepted: 1000, failed: 0, cpuSeconds: cpuUs === null ? null : (cpuUs * 1000) / 1e6 },
  verify: { wallSeconds: events / 100_000, cpuSeconds: events / 200_000, code: 0 },
  auditVerify: { wallSeconds: events / 50_000, cpuSeconds: events / 100_000, code: 0 },
  startSeconds: events / 1_000_000,
  bytesOnDisk: events * 2000,
  eventsAfter: events,
})

t.test('each read is compared by its p99, the ingest by its CPU per event, each against its goal', async (t) => {
  const small = store(100_000, 2, 300)
  const large = store(10_000_000, 3, 330, { proof: { p99Ms: 5, cpuUs: 500 }, deep_cursor: { p50Ms: 40, p99Ms: 80 } })
  const rows = compare(small, large)
  const row = (what: string) => rows.find((c) => c.what === what)
  t.same(row('GET /v1/orders/{id}'), { what: 'GET /v1/orders/{id}', small: '1.00 / 2.00 ms, 200 µs', large: '1.50 / 3.00 ms, 300 µs', ratio: 1.5, cpuRatio: 1.5, goal: 2 })
  t.equal(row('GET /v1/orders/{id}/proof')?.ratio, 2.5)
  t.same(row('GET /v1/orders?cursor=(last quarter)'), { what: 'GET /v1/orders?cursor=(last quarter)', small: '1.00 / 2.00 ms, 200 µs', large: '40.0 / 80.0 ms, 300 µs', ratio: 40, cpuRatio: 1.5, goal: 2 })
  t.equal(row('ingest: server CPU per ORDER_ADD')?.small, '300 µs')
  t.equal(row('ingest: server CPU per ORDER_ADD')?.ratio?.toFixed(2), '1.10')
  t.equal(row('ingest: server CPU per ORDER_ADD')?.goal, 1.2)
  t.same(row('waybill verify'), { what: 'waybill verify', small: '1.0 s, CPU 0.5 s (5.0 µs/event)', large: '100.0 s, CPU 50.0 s (5.0 µs/event)', ratio: 100, goal: null })
  t.equal(row('waybill audit verify')?.ratio, 100)
  t.same(row('waybill serve: start to listening'), { what: 'waybill serve: start to listening', small: '0.1 s', large: '10.0 s', ratio: 100, goal: null })
  t.same(row('bytes on disk per event'), { what: 'bytes on disk per event', small: '2,000 B', large: '2,000 B', ratio: 1, goal: null })

  const text = formatScaleReport(small, large, [1.5, 2, 3.25])
  t.match(text, /100,000 events\s+10,000,000 events\s+ratio\s+CPU ratio\s+goal\n-+\n/, 'the head and its rule')
  t.match(text, /GET \/v1\/orders\/\{id\}\s+1\.00 \/ 2\.00 ms, 200 µs\s+1\.50 \/ 3\.00 ms, 300 µs\s+1\.50×\s+1\.50×\s+≤ 2×: met\n/)
  t.match(text, /GET \/v1\/orders\/\{id\}\/proof\s+1\.00 \/ 2\.00 ms, 200 µs\s+1\.50 \/ 5\.00 ms, 500 µs\s+2\.50×\s+2\.50×\s+≤ 2×: NOT met\n/)
  t.match(text, /ingest: server CPU per ORDER_ADD\s+300 µs\s+330 µs\s+1\.10×\s+≤ 1\.2×: met\n/)
  t.match(text, /bytes on disk per event\s+2,000 B\s+2,000 B\s+1\.00×\n/, 'no goal, no verdict')
  t.match(text, /beyond the goal: GET \/v1\/orders\?cursor=\(last quarter\); GET \/v1\/orders\/\{id\}\/proof\n/)
  t.match(text, /load average at the end: 1\.50, 2\.00, 3\.25$/)
  t.notMatch(text, /FAILED/)
})

t.test('within every goal; a CPU not read is not measured and counts as beyond its goal; failures and exit codes are shown', async (t) => {
  t.match(formatScaleReport(store(100, 2, 300), store(1000, 3.9, 359), [0, 0, 0]), /\nevery read's p99 and the ingest CPU within their goals\n/)
  t.equal(ingestCpuUs({ accepted: 0, failed: 5, cpuSeconds: 1 }), null, 'nothing accepted')
  const unread = formatScaleReport(store(100, 2, null), store(1000, 2, 300), [0, 0, 0])
  t.match(unread, /ingest: server CPU per ORDER_ADD\s+–\s+300 µs\s+–\s+≤ 1\.2×: not measured\n/)
  t.match(unread, /beyond the goal: ingest: server CPU per ORDER_ADD\n/)
  const failing = { ...store(1000, 2, 300, { order: { failed: 3 } }), ingest: { accepted: 10, failed: 2, cpuSeconds: 0.003 }, verify: { wallSeconds: 1, cpuSeconds: 1, code: 1 } }
  const text = formatScaleReport(store(100, 2, 300), failing, [0, 0, 0])
  t.match(text, /FAILED REQUESTS \(not 200\/201\): GET \/v1\/orders\/\{id\} ×3, ingest ×2\n/)
  t.match(text, /waybill verify\s+.*s, CPU 1\.0 s \(1000\.0 µs\/event\) EXIT 1/)
  t.match(formatScaleReport(store(100, 0, 300), store(1000, 2, 300, { order: { cpuUs: null } }), [0, 0, 0]),
    /GET \/v1\/orders\/\{id\}\s+0\.00 \/ 0\.00 ms, 0 µs\s+1\.00 \/ 2\.00 ms, – µs\s+–\s+–\s+≤ 2×: not measured/, 'a p99 of 0 gives no ratio, a CPU not read neither')
})
