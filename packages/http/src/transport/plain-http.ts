import { randomUUID } from 'node:crypto'
import type { Socket } from 'node:net'
import { WaybillError } from '@waybill/domain'
import { redactKeyTokens } from '@waybill/keys'
import { dechunkedBody } from './chunked-body.js'
import { exposedKeysIn } from './exposed-keys.js'
import type { RevokeExposed } from './exposure.js'
import { problemFor, toWaybillError } from '../errors/problem.js'

export interface PlainHttpOptions {
  readonly revokeExposed: RevokeExposed
  /** Told of each refusal answered (the error counter of /metrics). */
  readonly onProblem: (error: WaybillError) => void
  /** Each answer is one `request` line, in the shape of the HTTPS requests' (logging/request-log.ts). */
  readonly log: { info(object: object, message: string): void; warn(object: object, message: string): void; error(object: object, message: string): void }
  /** Bytes read at most before answering. Default 1 MiB. */
  readonly maxBytes?: number
  /** Answer once the client has sent nothing for this long. Default 1,000 ms. */
  readonly idleMs?: number
  /** Answer at the latest this long after the first byte. Default 10,000 ms. */
  readonly totalMs?: number
  /**
   * After the answer is written, how long the connection stays to let the client read it and
   * close (bytes it still sends are scanned for keys too); then it is destroyed. Default 1,000 ms.
   */
  readonly lingerMs?: number
}

const HEAD_END = Buffer.from('\r\n\r\n', 'latin1')
const CHUNKED_END = Buffer.from('\r\n0\r\n\r\n', 'latin1')
const REQUEST_LINE = /^([A-Z]{1,16}) (\/\S*) HTTP\/1\.[01]\r\n/

/** The refusal of a plain-HTTP request, saying truthfully what became of the keys it carried. */
export function insecureRefusal(keysSeen: number, keysRevoked: number): WaybillError {
  if (keysRevoked > 0) {
    return new WaybillError('insecure_connection', 'Use HTTPS. This request carried an API key in the clear: it is now revoked and replaced; the operator reads the replacement with `waybill keys list`.')
  }
  if (keysSeen > 0) {
    return new WaybillError('insecure_connection', 'Use HTTPS. This request carried something shaped like an API key, but no live key: nothing was revoked.')
  }
  return new WaybillError('insecure_connection', 'Use HTTPS. No API key was seen in this request.')
}

/**
 * Answers a connection that speaks plain HTTP (on the plain listener, or on the HTTPS port when
 * its first byte is not a TLS handshake). No HTTP parser runs: whatever the client sends (a head
 * too large for Node's parser, a malformed line, CONNECT, conflicting lengths) is read as bytes,
 * up to the end of the request or a bound, and scanned for API keys; each is revoked and replaced,
 * durably, before the refusal is written. Nothing else is served here, so no load shedding or
 * shutdown path can answer first and spare a key.
 */
export function answerPlainHttp(socket: Socket, options: PlainHttpOptions): void {
  const maxBytes = options.maxBytes ?? 1024 * 1024
  const arrived = performance.now()
  const chunks: Buffer[] = []
  let length = 0
  let answered = false
  let idle: NodeJS.Timeout | undefined
  let linger: NodeJS.Timeout | undefined
  /** The keys the answer was about; null until it is written. */
  let answeredFor: readonly string[] | null = null
  const total = setTimeout(() => answer(), options.totalMs ?? 10_000)
  const received = (): Buffer => Buffer.concat(chunks, length)

  const answer = (): void => {
    if (answered) return
    answered = true
    clearTimeout(idle)
    clearTimeout(total)
    const bytes = received()
    const seen = keysIn(bytes)
    const requestLine = REQUEST_LINE.exec(bytes.subarray(0, 8192).toString('latin1'))
    const path = requestLine?.[2] ?? '/'
    options.revokeExposed(seen).then(
      (revoked) => respond(insecureRefusal(seen.length, revoked.length), revoked.length),
      (failure: unknown) => {
        options.log.error({ err: failure }, 'could not revoke a key seen over plain HTTP')
        respond(toWaybillError(failure), 0)
      },
    )
    function respond(error: WaybillError, keysRevoked: number): void {
      options.onProblem(error)
      const requestId = randomUUID()
      // The request's one log line (no Fastify request exists here to log it). The detail is left
      // out: what it says of the keys is in the two counts.
      const line = {
        reqId: requestId, method: requestLine?.[1] ?? null, url: redactKeyTokens(path), route: null, listener: 'plain', status: error.status,
        duration_ms: Math.round((performance.now() - arrived) * 10) / 10, client: socket.remoteAddress ?? null, code: error.code,
        keys_seen: seen.length, keys_revoked: keysRevoked,
      }
      if (error.status === 503) options.log.warn(line, 'request')
      else if (error.status >= 500) options.log.error(line, 'request')
      else options.log.info(line, 'request')
      const body = JSON.stringify(problemFor(error, path.split('?')[0] ?? '/', requestId))
      const headers = [
        `HTTP/1.1 ${error.status} ${error.status === 403 ? 'Forbidden' : 'Service Unavailable'}`,
        'content-type: application/problem+json; charset=utf-8',
        `content-length: ${Buffer.byteLength(body)}`,
        ...Object.entries(error.headers).filter(([name]) => name !== 'connection').map(([name, value]) => `${name}: ${value}`),
        `x-request-id: ${requestId}`,
        'connection: close',
      ]
      if (socket.destroyed) return
      // Written, then the connection goes: a client that never closes its side holds nothing
      // for more than the linger (bytes it sends meanwhile are still scanned, below).
      socket.end(`${headers.join('\r\n')}\r\n\r\n${body}`, () => {
        answeredFor = seen
        linger = setTimeout(() => socket.destroy(), options.lingerMs ?? 1000)
      })
    }
  }

  /** Keys that arrived after the answer (a body sent past the idle bound) are revoked too, once the connection is gone. */
  const revokeLate = (already: readonly string[]): void => {
    const late = keysIn(received()).filter((key) => !already.includes(key))
    if (late.length === 0) return
    options.revokeExposed(late).catch((failure: unknown) => {
      options.log.error({ err: failure }, 'could not revoke a key seen over plain HTTP after the answer')
    })
  }

  const onData = (chunk: Buffer): void => {
    const room = maxBytes - length
    if (room <= 0) return
    chunks.push(room < chunk.length ? chunk.subarray(0, room) : chunk)
    length += Math.min(room, chunk.length)
    if (answered) return
    clearTimeout(idle)
    if (length >= maxBytes || isComplete(received())) answer()
    else idle = setTimeout(answer, options.idleMs ?? 1000)
  }
  socket.on('data', onData)
  socket.once('end', answer)
  socket.once('close', () => {
    clearTimeout(idle)
    clearTimeout(total)
    clearTimeout(linger)
    if (answeredFor !== null) revokeLate(answeredFor)
  })
  socket.on('error', () => socket.destroy())
}

/** Every key in the raw bytes, and in the body again once its chunk-size lines are taken out. */
function keysIn(bytes: Buffer): string[] {
  const body = dechunkedBody(bytes)
  return exposedKeysIn(body === null ? bytes : Buffer.concat([bytes, Buffer.from('\n'), body]))
}

/** Whether the bytes hold a whole request: the head, and its body as long as the head says. */
function isComplete(bytes: Buffer): boolean {
  const headEnd = bytes.indexOf(HEAD_END)
  if (headEnd === -1) return false
  const head = bytes.subarray(0, headEnd).toString('latin1').toLowerCase()
  if (/\r\ntransfer-encoding:[^\r]*chunked/.test(head)) return bytes.indexOf(CHUNKED_END, headEnd) !== -1
  const lengths = [...head.matchAll(/\r\ncontent-length:[ \t]*(\d+)/g)].map((match) => Number(match[1]))
  const bodyLength = lengths.length === 0 ? 0 : Math.max(...lengths)
  return bytes.length >= headEnd + HEAD_END.length + bodyLength
}
