import { Agent, request } from 'node:https'

/** One request of a read load: its path and the key it is sent with. */
export interface ReadRequest {
  readonly path: string
  readonly key: string
}

/** What a read load measured. */
export interface ReadFigures {
  readonly requests: number
  readonly p50Ms: number
  readonly p99Ms: number
  /** Answers other than 200, and requests that failed outright. */
  readonly failed: number
  /** The server's CPU per request, in µs; null when it was not read. */
  readonly cpuUs: number | null
}

/** Each request's time, in ms, and how many failed. */
export interface ReadTimes {
  readonly times: readonly number[]
  readonly failed: number
}

/** The figures of one or more runs of a read taken together, each with the server's CPU seconds for it (null: not read). */
export function summarize(runs: ReadonlyArray<ReadTimes & { readonly cpuSeconds: number | null }>): ReadFigures {
  const times = runs.flatMap((run) => run.times)
  const cpu = runs.reduce<number | null>((sum, run) => (sum === null || run.cpuSeconds === null ? null : sum + run.cpuSeconds), 0)
  return {
    requests: times.length, p50Ms: percentile(times, 0.5), p99Ms: percentile(times, 0.99), failed: runs.reduce((sum, run) => sum + run.failed, 0),
    cpuUs: cpu === null || times.length === 0 ? null : (cpu * 1e6) / times.length,
  }
}

/**
 * Sends `requests` (made by `nth`, from `first` on) over `connections` kept-alive HTTPS
 * connections, each connection sending its next as soon as its last was answered and read
 * whole, and times each from the request to the answer's last byte. `warmup` requests first,
 * not timed: the first requests of a fresh connection pay for its TLS handshake.
 */
export async function readLoad(url: string, nth: (i: number) => ReadRequest, options: { readonly first: number; readonly requests: number; readonly connections: number; readonly warmup: number }): Promise<ReadTimes> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections, rejectUnauthorized: false })
  try {
    const run = async (count: number, offset: number): Promise<ReadTimes> => {
      const times: number[] = []
      let failed = 0
      let next = 0
      const connection = async (): Promise<void> => {
        for (let i = next++; i < count; i = next++) {
          const read = nth(offset + i)
          const started = performance.now()
          const status = await get(agent, url, read)
          times.push(performance.now() - started)
          if (status !== 200) failed += 1
        }
      }
      await Promise.all(Array.from({ length: options.connections }, connection))
      return { times, failed }
    }
    // The warm-up asks for other orders than the timed requests, as far along.
    await run(options.warmup, options.first + 7919)
    return await run(options.requests, options.first)
  } finally {
    agent.destroy()
  }
}

/** The answer's status once its body is read whole; 0 when the request failed. */
function get(agent: Agent, url: string, read: ReadRequest): Promise<number> {
  return new Promise((resolve) => {
    const req = request(new URL(read.path, url), { agent, headers: { 'service-api-key': read.key } }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode ?? 0))
      res.on('error', () => resolve(0))
    })
    req.on('error', () => resolve(0))
    req.end()
  })
}

/** The nearest-rank percentile of `values` (0 when there are none). */
function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? 0
}
