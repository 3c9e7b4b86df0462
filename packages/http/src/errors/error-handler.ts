import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { WaybillError, type ErrorCode } from '@waybill/domain'
import { noteProblem } from '../logging/request-log.js'
import { MethodsByPath } from './methods-by-path.js'
import { NotReadyError } from './not-ready.js'
import { problemFor, refusalLogFields, toWaybillError } from './problem.js'

/** Told of every problem answered, with its code and status (the error counter of /metrics). */
export type ProblemListener = (code: ErrorCode, status: number) => void

/** Answers a thrown value as a problem body. */
export type SendProblem = (thrown: unknown, request: FastifyRequest, reply: FastifyReply) => FastifyReply

/**
 * The one place an error becomes a response: an RFC 9457 problem body with the catalogue code,
 * and the one place errors are counted. A 5xx says only its catalogue title to the client; the
 * cause goes to the log (the request's one line). Also used for Fastify's framework errors (a path with bad
 * percent-encoding), which are answered before any hook or the error handler runs.
 */
export function problemSender(onProblem: ProblemListener): SendProblem {
  return (thrown, request, reply) => {
    const error = toWaybillError(thrown)
    // Said in the request's one log line (logging/request-log.ts): a 503 is a passing condition
    // (store away, draining), with its cause and no stack; another 5xx has the error and its stack.
    noteProblem(request, error.status === 503
      ? { ...refusalLogFields(error), cause: error.cause instanceof Error ? String(error.cause) : '' }
      : error.status >= 500 ? { ...refusalLogFields(error), err: thrown } : refusalLogFields(error))
    if (!(error instanceof NotReadyError)) onProblem(error.code, error.status)
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
  const methods = new MethodsByPath()
  app.addHook('onRoute', (route) => { methods.add(route.url, route.method) })
  app.setErrorHandler(async (thrown, request, reply) => options.send(thrown, request, reply))
  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0] ?? ''
    // A known path asked with another method: 405 with the methods it takes (RFC 9110 §15.5.6).
    const allowed = methods.of(path)
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '))
      throw new WaybillError('method_not_allowed', `${request.method} is not accepted on ${path}; use ${allowed.join(' or ')}`)
    }
    throw new WaybillError('not_found', `No route ${request.method} ${path}`)
  })
}

export default fp(errorHandler, { name: 'waybill-error-handler' })
