import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Level } from 'pino'
import { LogController } from 'fastify'
import { loggableUrl } from '../redact-url.js'

/** What the error handler tells the request's log line of the problem it answered. */
export interface ProblemNote {
  readonly code: string
  readonly detail: string | undefined
  /** What failed inside, for a 5xx: the error itself (500, with its stack) or its message (503). */
  readonly err?: unknown
  readonly cause?: string
}

const problems = new WeakMap<FastifyRequest, ProblemNote>()

/** Notes the problem a request is answered with, for its one log line. */
export function noteProblem(request: FastifyRequest, note: ProblemNote): void {
  problems.set(request, note)
}

/** The probes: asked every few seconds by every balancer, logged at debug only. */
const PROBES = new Set(['/healthz', '/readyz'])

/**
 * One log line per request, when its answer has gone out, instead of Fastify's two ("incoming
 * request", "request completed"): method, path (API keys cut to their prefix), route, status,
 * duration, client address, the request id (`reqId`), and for a problem its code and detail —
 * never a key or a body. The level says how it went: info, warn for a 503 (a passing condition),
 * error for another 5xx (with the error and its stack); the probes at debug.
 */
export class RequestLogController extends LogController {
  /**
   * `enabled` tells whether the logger writes lines of a level: a line it would drop is not
   * built (its URL scanned for keys, its object made), which at `warn` is every 2xx.
   */
  constructor(private readonly enabled: (level: Level) => boolean) {
    super()
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const status = reply.statusCode
    const route = request.routeOptions.url ?? null
    const level: Level = route !== null && PROBES.has(route) ? 'debug'
      : status >= 500 && status !== 503 ? 'error'
        : status === 503 || error != null ? 'warn'
          : 'info'
    if (!this.enabled(level)) return
    const problem = problems.get(request)
    const line = {
      method: request.method,
      url: loggableUrl(request.url),
      route,
      status,
      duration_ms: Math.round(reply.elapsedTime * 10) / 10,
      client: request.ip,
      ...(problem === undefined ? {} : problem),
      ...(error == null ? {} : { err: error }),
    }
    request.log[level](line, 'request')
  }
}
