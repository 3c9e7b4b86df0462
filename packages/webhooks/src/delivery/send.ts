import { request as httpRequest, type Agent as HttpAgent } from 'node:http'
import { request as httpsRequest, type Agent as HttpsAgent } from 'node:https'
import { performance } from 'node:perf_hooks'

/** What became of one attempt (the delivery log's `outcome`, a label of the attempts metric). */
export const ATTEMPT_OUTCOMES = ['delivered', 'failed', 'gone', 'timeout', 'error'] as const
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number]

export interface SendOptions {
  /** The whole attempt, connection to last byte read, is cut at this. */
  readonly timeoutMs: number
  /** Bytes of the answer's body read at most; the rest is not waited for. */
  readonly maxResponseBytes: number
  /** The endpoint's connection pool (keep-alive, its bound on sockets). */
  readonly agent?: HttpAgent | HttpsAgent
  /** Aborting cuts the attempt at once (the deliverer stops): an `error` with no status. */
  readonly signal?: AbortSignal
}

export interface SendResult {
  readonly outcome: AttemptOutcome
  /** The HTTP status, null when no answer came. */
  readonly status: number | null
  readonly durationMs: number
  /** Why it did not count as delivered: the status and the start of the answer, or what failed. */
  readonly error: string | null
  /** The answer's `Retry-After`, as sent. */
  readonly retryAfter?: string
}

/** How much of an answer's body the delivery log keeps in `error`. */
const EXCERPT_BYTES = 200

/**
 * POSTs one message and says what became of it, never throwing: 2xx is delivered, 410 gone,
 * anything else failed (a redirect is not followed: the URL the operator registered is the only
 * one Waybill posts to), no answer within `timeoutMs` a timeout, a connection that failed an
 * error. The answer's body is read up to `maxResponseBytes` and within the same deadline, then
 * the connection is cut: a huge or slow answer costs a receiver's own attempt, nothing more.
 */
export function postWebhook(url: URL, headers: Readonly<Record<string, string>>, body: string, options: SendOptions): Promise<SendResult> {
  return new Promise((resolve) => {
    const started = performance.now()
    let settled = false
    let answered: { status: number; retryAfter: string | undefined; location: string | undefined; excerpt: Buffer[]; kept: number } | null = null
    const finish = (result: Omit<SendResult, 'durationMs'>): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      options.signal?.removeEventListener('abort', abort)
      resolve({ ...result, durationMs: Math.round(performance.now() - started) })
    }
    const judged = (): Omit<SendResult, 'durationMs'> => judge(answered as NonNullable<typeof answered>)
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest
    const req = send(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      ...(options.agent === undefined ? {} : { agent: options.agent }),
    })
    const timer = setTimeout(() => {
      finish(answered === null ? { outcome: 'timeout', status: null, error: `no answer within ${options.timeoutMs} ms` } : judged())
      req.destroy()
    }, options.timeoutMs)
    req.on('response', (response) => {
      const header = (name: string): string | undefined => {
        const value = response.headers[name]
        return Array.isArray(value) ? value[0] : value
      }
      const state = { status: response.statusCode ?? 0, retryAfter: header('retry-after'), location: header('location'), excerpt: [] as Buffer[], kept: 0 }
      answered = state
      let read = 0
      response.on('data', (chunk: Buffer) => {
        read += chunk.length
        if (state.kept < EXCERPT_BYTES) {
          state.excerpt.push(chunk.subarray(0, EXCERPT_BYTES - state.kept))
          state.kept += Math.min(chunk.length, EXCERPT_BYTES - state.kept)
        }
        if (read > options.maxResponseBytes) {
          finish(judged())
          req.destroy()
        }
      })
      response.on('end', () => finish(judged()))
      response.on('error', () => finish(judged()))
    })
    req.on('error', (error) => finish({ outcome: 'error', status: null, error: error.message }))
    const abort = (): void => {
      finish({ outcome: 'error', status: null, error: 'stopped before an answer came' })
      req.destroy()
    }
    if (options.signal?.aborted === true) abort()
    else options.signal?.addEventListener('abort', abort, { once: true })
    req.end(body)
  })
}

/** An answer's outcome, from its status. */
function judge(answer: { status: number; retryAfter: string | undefined; location: string | undefined; excerpt: Buffer[] }): Omit<SendResult, 'durationMs'> {
  const { status } = answer
  const retryAfter = answer.retryAfter === undefined ? {} : { retryAfter: answer.retryAfter }
  if (status >= 200 && status < 300) return { outcome: 'delivered', status, error: null, ...retryAfter }
  const excerpt = printable(Buffer.concat(answer.excerpt).toString('utf8'))
  const said = status >= 300 && status < 400
    ? `redirect${answer.location === undefined ? '' : ` to ${printable(answer.location)}`} not followed`
    : excerpt
  return { outcome: status === 410 ? 'gone' : 'failed', status, error: `HTTP ${status}${said === '' ? '' : `: ${said}`}`, ...retryAfter }
}

/** Text for a log line: each run of white space and control characters one space, at most `EXCERPT_BYTES` characters. */
function printable(text: string): string {
  return text.replace(/[\s\p{Cc}]+/gu, ' ').trim().slice(0, EXCERPT_BYTES)
}
