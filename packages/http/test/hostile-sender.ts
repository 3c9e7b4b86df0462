/**
 * A child process of stall.e2e.test.ts: it sends hostile bodies from outside the server's process,
 * so that building and encrypting 16 MiB bodies costs the server's event loop nothing.
 *
 * WAYBILL_STALL_SENDER holds its settings as JSON (SenderSettings). It builds its bodies, writes
 * `{"type":"ready"}`, waits for a line on stdin, then keeps `lanes` bodies in flight (each lane
 * one connection, sending the next body when the last is answered, through every kind in turn),
 * writes one `{"type":"reply",…}` line per answer and `{"type":"done"}` at the end.
 */
import { readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { Readable } from 'node:stream'
import { Agent, request } from 'undici'
import { HOSTILE_KINDS, hostileBody, type HostileBody, type HostileKind } from './hostile-bodies.js'

export interface SenderSettings {
  readonly url: string
  readonly caPath: string
  readonly key: string
  readonly lanes: number
  /** Each lane sends at least this many bodies… */
  readonly minBodiesPerLane: number
  /** …and goes on until this much time has passed… */
  readonly minMs: number
  /** …but starts no body after this. */
  readonly maxMs: number
}

export interface Reply {
  readonly type: 'reply'
  readonly lane: number
  readonly kind: HostileKind
  readonly status?: number
  readonly code?: string
  readonly detail?: string
  readonly error?: string
  readonly ms: number
}

const settings = JSON.parse(process.env['WAYBILL_STALL_SENDER'] ?? '{}') as SenderSettings
const bodies = new Map<HostileKind, HostileBody>(HOSTILE_KINDS.map((kind) => [kind, hostileBody(kind)]))
const ca = readFileSync(settings.caPath, 'utf8')
const say = (line: object): void => { process.stdout.write(`${JSON.stringify(line)}\n`) }

say({ type: 'ready' })
for await (const _ of createInterface({ input: process.stdin })) break
const started = performance.now()

function* slices(body: Buffer): Generator<Buffer> {
  for (let at = 0; at < body.length; at += 64 * 1024) yield body.subarray(at, at + 64 * 1024)
}

async function send(lane: number, kind: HostileKind, dispatcher: Agent): Promise<Reply> {
  const { body, contentType } = bodies.get(kind) as HostileBody
  const sent = performance.now()
  try {
    // Written 64 KiB at a time as the connection drains, with its length announced: a 16 MiB
    // Buffer would be encrypted whole at once, a burst of CPU on the machine the server shares.
    const response = await request(`${settings.url}/v1/deliveries`, {
      method: 'POST', dispatcher, body: Readable.from(slices(body)),
      headers: { 'service-api-key': settings.key, 'content-type': contentType, 'content-length': String(body.length) },
    })
    const text = await response.body.text()
    let problem: { code?: string; detail?: string } = {}
    try { problem = JSON.parse(text) as typeof problem } catch { /* not a problem body: the assertions say so */ }
    return { type: 'reply', lane, kind, status: response.statusCode, ...problem, ms: performance.now() - sent }
  } catch (error) {
    return { type: 'reply', lane, kind, error: String(error), ms: performance.now() - sent }
  }
}

async function runLane(lane: number): Promise<void> {
  const dispatcher = new Agent({ connect: { ca }, connections: 1 })
  try {
    for (let round = 0; ; round++) {
      const elapsed = performance.now() - started
      if (elapsed > settings.maxMs || (round >= settings.minBodiesPerLane && elapsed > settings.minMs)) break
      say(await send(lane, HOSTILE_KINDS[(lane + round) % HOSTILE_KINDS.length] as HostileKind, dispatcher))
    }
  } finally {
    await dispatcher.close()
  }
}

await Promise.all(Array.from({ length: settings.lanes }, (_, lane) => runLane(lane)))
say({ type: 'done' })
