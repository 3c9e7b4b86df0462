import type { Readable } from 'node:stream'
import { LIMITS, WaybillError } from '@waybill/domain'

/** The first look at a body still arriving; then at every doubling of what has arrived. */
const FIRST_LOOK_BYTES = 64 * 1024
/** A refused body is read on at about 6 MiB/s: this much, then a pause. */
const DRAIN_TURN_BYTES = 64 * 1024
const DRAIN_PAUSE_MS = 10

/**
 * Reads a request body whole, at most `bodyMaxBytes` (else payload_too_large, at once when the
 * Content-Length says so), as Fastify's `parseAs: 'buffer'` does, and meanwhile lets `checkStart`
 * look at what has arrived each time it doubles, from 64 KiB.
 *
 * A body whose start is already past a structure limit (docs/contract.md#body-structure) is not kept:
 * the rest of it is read and dropped, and the refusal answers once it has all arrived. The rest
 * is still read, not cut off, because a client that writes its whole body before it reads the
 * answer (most blocking HTTP clients do) would otherwise see a reset instead of the problem. But
 * it is read slowly, 64 KiB every 10 ms: taking in bytes costs the shared thread about 1.3 ms
 * per MiB (TLS, HTTP framing, and the garbage collection of a buffer per TLS record), and three
 * hostile senders writing flat out kept it so busy that /healthz waited 80–180 ms at p99 on a
 * loaded machine. Slowed down, a sender pays for its refusal in time (16 MiB takes about 2.7 s)
 * rather than the server in CPU.
 *
 * The early look only runs when the Content-Length is known (so payload_too_large cannot come
 * later, keeping the order of checks, docs/contract.md#order-of-checks) and once the start holds
 * a character other than white space (a blank body is no_body whatever else it would break). The
 * looks together copy about as much again as the body, and scan it without building anything.
 */
export function readBody(payload: Readable, contentLength: string | undefined, checkStart: (start: Buffer) => void): Promise<Buffer> {
  const declared = contentLength === undefined ? Number.NaN : Number(contentLength)
  if (declared > LIMITS.bodyMaxBytes) return Promise.reject(new WaybillError('payload_too_large'))
  const looks = !Number.isNaN(declared)
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] = []
    let received = 0
    let nextLook = FIRST_LOOK_BYTES
    // How far the start is known to be white space; -1 once it holds anything else.
    let blankTo = 0
    let refusal: Error | null = null
    let drainedThisTurn = 0
    const stop = (): void => {
      payload.removeListener('data', onData)
      payload.removeListener('end', onEnd)
      payload.removeListener('error', onError)
    }
    const drain = (chunk: Buffer): void => {
      drainedThisTurn += chunk.length
      if (drainedThisTurn < DRAIN_TURN_BYTES) return
      drainedThisTurn = 0
      payload.pause()
      setTimeout(() => payload.resume(), DRAIN_PAUSE_MS)
    }
    function onData(chunk: Buffer): void {
      received += chunk.length
      if (received > LIMITS.bodyMaxBytes) {
        stop()
        reject(new WaybillError('payload_too_large'))
        return
      }
      if (refusal !== null) {
        drain(chunk)
        return
      }
      chunks.push(chunk)
      if (!looks || received < nextLook || received >= declared) return
      nextLook = received * 2
      const start = Buffer.concat(chunks, received)
      chunks = [start]
      if (blankTo >= 0) blankTo = mayBeBlankTo(start, blankTo)
      if (blankTo >= 0) return
      try {
        checkStart(start)
      } catch (error) {
        refusal = error instanceof Error ? error : new Error(String(error))
        chunks = []
      }
    }
    function onEnd(): void {
      stop()
      if (refusal === null) resolve(Buffer.concat(chunks, received))
      else reject(refusal)
    }
    function onError(error: Error): void {
      stop()
      reject(new WaybillError('bad_request', 'The body could not be read', { cause: error }))
    }
    payload.on('data', onData)
    payload.on('end', onEnd)
    payload.on('error', onError)
    payload.resume()
  })
}

/**
 * -1 once `start` holds a character other than white space (as String.prototype.trim counts it:
 * U+00A0 and U+FEFF are white space too); else how far it is known to be white space, to go on
 * from at the next look.
 */
function mayBeBlankTo(start: Buffer, from: number): number {
  for (let i = from; i < start.length; i++) {
    const byte = start[i] as number
    if (byte === 0x20 || (byte >= 0x09 && byte <= 0x0d)) continue
    if (byte < 0x80) return -1
    const width = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2
    if (i + width > start.length) return i
    if (!/^\s$/u.test(start.toString('utf8', i, i + width))) return -1
    i += width - 1
  }
  return start.length
}
