import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { WaybillError, type ErrorCode } from '@waybill/domain'
import { problemFor, toWaybillError } from '../http/problem.js'

/** Told of every problem answered, with its code and status (the error counter of /metrics). */
export type ProblemListener = (code: ErrorCode, status: number) => void

/** Answers a thrown value as a problem body. */
export type SendProblem = (thrown: unknown, request: FastifyRequest, reply: FastifyReply) => FastifyReply

/**
 * The one place an error becomes a response: an RFC 9457 problem body with the catalogue code,
 * and the one place errors are counted. A 5xx says only its catalogue title to the client; the
 * cause goes to the log. Also used for Fastify's framework errors (a path with bad
 * percent-encoding), which are answered before any hook or the error handler runs.
 */
export function problemSender(onProblem: ProblemListener): SendProblem {
  return (thrown, request, reply) => {
    const error = toWaybillError(thrown)
    // A 503 is a passing condition said to the client (store away, draining): a warning, no stack.
    if (error.status === 503) request.log.warn({ code: error.code, detail: error.detail, cause: error.cause instanceof Error ? String(error.cause) : '' }, 'request refused for now')
    else if (error.status >= 500) request.log.error({ err: thrown }, 'request failed')
    else request.log.info({ code: error.code, detail: error.detail }, 'request refused')
    onProblem(error.code, error.status)
    const path = request.url.split('?')[0] ?? request.url
    for (const [name, value] of Object.entries(error.headers)) reply.header(name, value)
    return reply
      .code(error.status)
      .header('x-request-id', request.id)
      .type('application/problem+json; charset=utf-8')
      .send(JSON.stringify(problemFor(error, path, request.id)))
  }
}

async function errorHandler(app: FastifyInstance, options: { readonly send: SendProblem }): Promise<void> {
  app.setErrorHandler(async (thrown, request, reply) => options.send(thrown, request, reply))
  app.setNotFoundHandler(async (request) => {
    throw new WaybillError('not_found', `No route ${request.method} ${request.url.split('?')[0] ?? ''}`)
  })
}

export default fp(errorHandler, { name: 'waybill-error-handler' })
