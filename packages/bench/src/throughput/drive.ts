import autocannon, { type Result } from 'autocannon'
import { workload, type Phase } from './workload.js'

export interface DriveOptions {
  readonly url: string
  readonly key: string
  readonly phase: Phase
  readonly seconds: number
  readonly connections: number
  /** Order ids start with this, so no two runs (or warm-ups) share one. */
  readonly runId: string
  /** Requests per second over all connections (open loop); unlimited when absent. */
  readonly rate?: number
}

export interface PhaseFigures {
  readonly requestsPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly total: number
  readonly ok: number
  readonly non2xx: number
  readonly errors: number
  readonly timeouts: number
  readonly statusCounts: Readonly<Record<string, number>>
}

/**
 * One autocannon run in this process (no `workers`, autocannon's default): on two cores the client already competes
 * with the server for CPU, and worker threads would only add more contention.
 */
export async function drive(options: DriveOptions): Promise<PhaseFigures> {
  const result: Result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.seconds,
    timeout: 10,
    requests: workload(options.phase, options.key, options.runId),
    ...(options.rate !== undefined ? { overallRate: options.rate } : {}),
  })
  const statusCounts: Record<string, number> = {}
  for (const [status, { count }] of Object.entries(result.statusCodeStats ?? {})) statusCounts[status] = count ?? 0
  const total = Object.values(statusCounts).reduce((a, b) => a + b, 0)
  return {
    requestsPerSecond: total / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    total,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCounts,
  }
}
