import type { ReadFigures } from './read-load.js'
import { READ_LABELS, READS, type ReadName } from './read-targets.js'
import type { TimedRun } from './timed-command.js'

/** What the scale bench measured on one store. */
export interface StoreFigures {
  /** Events in the log when the reads were measured (the order events built, the keys' own). */
  readonly events: number
  readonly reads: Readonly<Record<ReadName, ReadFigures>>
  readonly ingest: IngestFigures
  readonly verify: TimedRun
  readonly auditVerify: TimedRun
  /** From starting `waybill serve` to its HTTPS port listening, in seconds. */
  readonly startSeconds: number
  /** The data dir and the subject key store, on disk, with `events` events (before the ingest). */
  readonly bytesOnDisk: number
  /** Events in the log after the ingest, which the verifications read. */
  readonly eventsAfter: number
}

export interface IngestFigures {
  /** ORDER_ADD requests answered 201. */
  readonly accepted: number
  /** Requests answered otherwise, or not at all. */
  readonly failed: number
  /** The server's CPU from quiet before the load to quiet after it; null when it could not be read. */
  readonly cpuSeconds: number | null
}

/** The goals: each read's p99 at the large size within this many times its p99 at the small one, the ingest's CPU per event within this. */
const READ_P99_GOAL = 2
const INGEST_CPU_GOAL = 1.2

/** One measure at both sizes, its ratio, and its goal if it has one (null: figures only). */
export interface Comparison {
  readonly what: string
  readonly small: string
  readonly large: string
  readonly ratio: number | null
  /** A read's ratio of the server's CPU per request (null: not read; absent: not a read). */
  readonly cpuRatio?: number | null
  readonly goal: number | null
}

/** The server's CPU per accepted event, in µs; null when it was not read or nothing was accepted. */
export function ingestCpuUs(ingest: IngestFigures): number | null {
  return ingest.cpuSeconds === null || ingest.accepted === 0 ? null : (ingest.cpuSeconds * 1e6) / ingest.accepted
}

const ratioOf = (large: number | null, small: number | null): number | null =>
  large === null || small === null || small === 0 ? null : large / small
const ms = (n: number): string => n.toFixed(n < 10 ? 2 : 1)
const thousands = (n: number): string => Math.round(n).toLocaleString('en')
const timed = (run: TimedRun, events: number): string =>
  `${run.wallSeconds.toFixed(1)} s, CPU ${run.cpuSeconds.toFixed(1)} s (${((run.cpuSeconds * 1e6) / events).toFixed(1)} µs/event)${run.code === 0 ? '' : ` EXIT ${run.code}`}`

/** Every measure side by side: the reads (p50 / p99, ratio of the p99s), the ingest, the two verifications, the bytes per event. */
export function compare(small: StoreFigures, large: StoreFigures): Comparison[] {
  const reads = READS.map((read): Comparison => {
    const [s, l] = [small.reads[read], large.reads[read]]
    const cell = (f: ReadFigures): string => `${ms(f.p50Ms)} / ${ms(f.p99Ms)} ms, ${f.cpuUs === null ? '–' : f.cpuUs.toFixed(0)} µs`
    return { what: READ_LABELS[read], small: cell(s), large: cell(l), ratio: ratioOf(l.p99Ms, s.p99Ms), cpuRatio: ratioOf(l.cpuUs, s.cpuUs), goal: READ_P99_GOAL }
  })
  const [si, li] = [ingestCpuUs(small.ingest), ingestCpuUs(large.ingest)]
  const us = (n: number | null): string => (n === null ? '–' : `${n.toFixed(0)} µs`)
  return [
    ...reads,
    { what: 'ingest: server CPU per ORDER_ADD', small: us(si), large: us(li), ratio: ratioOf(li, si), goal: INGEST_CPU_GOAL },
    {
      what: 'waybill serve: start to listening', small: `${small.startSeconds.toFixed(1)} s`, large: `${large.startSeconds.toFixed(1)} s`,
      ratio: ratioOf(large.startSeconds, small.startSeconds), goal: null,
    },
    { what: 'waybill verify', small: timed(small.verify, small.eventsAfter), large: timed(large.verify, large.eventsAfter), ratio: ratioOf(large.verify.cpuSeconds, small.verify.cpuSeconds), goal: null },
    {
      what: 'waybill audit verify', small: timed(small.auditVerify, small.eventsAfter), large: timed(large.auditVerify, large.eventsAfter),
      ratio: ratioOf(large.auditVerify.cpuSeconds, small.auditVerify.cpuSeconds), goal: null,
    },
    {
      what: 'bytes on disk per event', small: `${thousands(small.bytesOnDisk / small.events)} B`, large: `${thousands(large.bytesOnDisk / large.events)} B`,
      ratio: ratioOf(large.bytesOnDisk / large.events, small.bytesOnDisk / small.events), goal: null,
    },
  ]
}

const verdict = (c: Comparison): string =>
  c.goal === null ? '' : c.ratio === null ? `≤ ${c.goal}×: not measured` : `≤ ${c.goal}×: ${c.ratio <= c.goal ? 'met' : 'NOT met'}`

/**
 * The table: each measure at both sizes, the ratio large / small (of the p99 for the reads, of
 * the CPU for the ingest and the verifications) and its goal; then what failed, what grew past
 * its goal, and the load average, since the machine's other work weighs on every figure.
 */
export function formatScaleReport(small: StoreFigures, large: StoreFigures, loadAverage: readonly number[]): string {
  const rows = compare(small, large)
  const times = (n: number | null): string => (n === null ? '–' : `${n.toFixed(2)}×`)
  const head = ['', `${thousands(small.events)} events`, `${thousands(large.events)} events`, 'ratio', 'CPU ratio', 'goal']
  const cells = [head, ...rows.map((c) => [c.what, c.small, c.large, times(c.ratio), c.cpuRatio === undefined ? '' : times(c.cpuRatio), verdict(c)])]
  const widths = head.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)))
  const lines = cells.map((row) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ').trimEnd())
  lines.splice(1, 0, '-'.repeat(lines[0]?.length ?? 0))
  lines.unshift('reads: p50 / p99 over HTTPS, and the server\'s own CPU per request (every thread, from /proc); their ratio is of the p99s, the CPU ratio of the CPU.',
    'ingest: the server\'s own CPU (every thread, the projector\'s included) per accepted ORDER_ADD. verify: wall time and CPU.')
  const failed = [...READS.map((read) => [READ_LABELS[read], small.reads[read].failed + large.reads[read].failed] as const),
    ['ingest', small.ingest.failed + large.ingest.failed] as const].filter(([, n]) => n > 0)
  if (failed.length > 0) lines.push(`FAILED REQUESTS (not 200/201): ${failed.map(([what, n]) => `${what} ×${n}`).join(', ')}`)
  const grew = rows.filter((c) => c.goal !== null && (c.ratio === null || c.ratio > c.goal))
  lines.push(grew.length === 0 ? 'every read\'s p99 and the ingest CPU within their goals' : `beyond the goal: ${grew.map((c) => c.what).join('; ')}`)
  lines.push(`load average at the end: ${loadAverage.map((n) => n.toFixed(2)).join(', ')}`)
  return lines.join('\n')
}
