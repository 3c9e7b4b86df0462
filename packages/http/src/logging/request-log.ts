import type { FastifyReply, FastifyRequest } from 'fastify'
import { LogController } from 'fastify'
import { redactKeyTokens } from '@waybill/keys'

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
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const status = reply.statusCode
    const route = request.routeOptions.url ?? null
    const problem = problems.get(request)
    const line = {
      method: request.method,
      url: redactKeyTokens(request.url),
      route,
      status,
      duration_ms: Math.round(reply.elapsedTime * 10) / 10,
      client: request.ip,
      ...(problem === undefined ? {} : problem),
      ...(error == null ? {} : { err: error }),
    }
    if (route !== null && PROBES.has(route)) request.log.debug(line, 'request')
    else if (status >= 500 && status !== 503) request.log.error(line, 'request')
    else if (status === 503 || error != null) request.log.warn(line, 'request')
    else request.log.info(line, 'request')
  }
}
