/**
 * A child process of alone/stall.e2e.ts: clients reading one order over and over from outside the
 * server's process, so that their own work (TLS, parsing megabytes of answers) is not counted
 * against the server they measure.
 *
 * WAYBILL_ORDER_READER holds its settings as JSON (ReaderSettings). It opens its connections,
 * writes `{"type":"ready"}`, starts at the first line on stdin, keeps `lanes` requests in flight
 * (each lane one connection, going through `paths` in turn) for `forMs`, then writes
 * `{"type":"done",…}` (ReaderResult).
 */
import { readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { Agent, request } from 'undici'

export interface ReaderSettings {
  readonly url: string
  readonly caPath: string
  readonly key: string
  readonly lanes: number
  readonly paths: readonly string[]
  readonly forMs: number
}

export interface ReaderResult {
  readonly type: 'done'
  /** Answers by status, e.g. { "200": 412 }. */
  readonly statuses: Readonly<Record<string, number>>
  readonly bytes: number
  readonly failures: readonly string[]
}

const settings = JSON.parse(process.env['WAYBILL_ORDER_READER'] ?? '{}') as ReaderSettings
const ca = readFileSync(settings.caPath, 'utf8')
const say = (line: object): void => { process.stdout.write(`${JSON.stringify(line)}\n`) }
const statuses: Record<string, number> = {}
const failures: string[] = []
let bytes = 0

say({ type: 'ready' })
for await (const _ of createInterface({ input: process.stdin })) break
const until = performance.now() + settings.forMs

async function lane(index: number): Promise<void> {
  const dispatcher = new Agent({ connect: { ca }, connections: 1 })
  try {
    for (let round = index; performance.now() < until; round += 1) {
      const path = settings.paths[round % settings.paths.length] ?? '/healthz'
      try {
        const response = await request(`${settings.url}${path}`, { dispatcher, headers: { 'service-api-key': settings.key } })
        // Read before it is added: `bytes += await …` would add to the total as it was before the
        // await, dropping what the other lanes added meanwhile.
        const body = await response.body.arrayBuffer()
        bytes += body.byteLength
        statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1
      } catch (error) {
        failures.push(`${path}: ${String(error)}`)
      }
    }
  } finally {
    await dispatcher.close()
  }
}

await Promise.all(Array.from({ length: settings.lanes }, (_, index) => lane(index)))
say({ type: 'done', statuses, bytes, failures } satisfies ReaderResult)
