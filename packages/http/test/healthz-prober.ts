/**
 * A child process of stall.e2e.test.ts: a client polling GET /healthz from outside the server's
 * process, so that its own work (a TLS request every few ms, and the garbage that makes) is not
 * counted against the server it measures.
 *
 * WAYBILL_STALL_PROBER holds its settings as JSON (ProberSettings). It opens its connection,
 * writes `{"type":"ready"}`, starts polling at the first line on stdin and stops at the second,
 * then writes `{"type":"latencies",…}` (ProberResult).
 *
 * One probe is in flight at a time, each due every `everyMs`, and each answer is timed from when
 * its probe was due. When an answer comes late, every probe that fell due meanwhile is counted as
 * waiting until that answer too (the correction for coordinated omission): a stall of a second
 * holds back 200 probes, and counting it once would hide it under the p99 of thousands.
 */
import { readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { setTimeout } from 'node:timers/promises'
import { Agent, request } from 'undici'

export interface ProberSettings {
  readonly url: string
  readonly caPath: string
  readonly everyMs: number
}

export interface ProberResult {
  readonly type: 'latencies'
  /** Milliseconds from when each probe was due to its answer. */
  readonly latencies: readonly number[]
  readonly failures: readonly string[]
}

const settings = JSON.parse(process.env['WAYBILL_STALL_PROBER'] ?? '{}') as ProberSettings
const dispatcher = new Agent({ connect: { ca: readFileSync(settings.caPath, 'utf8') }, connections: 1 })
const healthz = async (): Promise<number> => {
  const response = await request(`${settings.url}/healthz`, { dispatcher })
  await response.body.text()
  return response.statusCode
}

// The connection, its handshake and a warm route before the clock starts.
for (let i = 0; i < 20; i++) await healthz()
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]()
process.stdout.write(`${JSON.stringify({ type: 'ready' })}\n`)
await lines.next()
const polling = { stopped: false }
void lines.next().then(() => { polling.stopped = true })

const latencies: number[] = []
const failures: string[] = []
const start = performance.now()
const dueAt = (n: number): number => start + n * settings.everyMs
for (let due = 0; !polling.stopped;) {
  const wait = dueAt(due) - performance.now()
  if (wait > 0) await setTimeout(wait)
  try {
    const status = await healthz()
    if (status !== 200) failures.push(`status ${status}`)
  } catch (error) {
    failures.push(String(error))
  }
  const now = performance.now()
  for (; dueAt(due) <= now; due++) latencies.push(now - dueAt(due))
}
const result: ProberResult = { type: 'latencies', latencies, failures }
process.stdout.write(`${JSON.stringify(result)}\n`)
await dispatcher.close()
