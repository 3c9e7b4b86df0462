import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { WaybillError } from '@waybill/domain'
import { problemFor, toWaybillError } from '../http/problem.js'

/**
 * The one place an error becomes a response: an RFC 9457 problem body with the catalogue code.
 * A 5xx says only "Internal server error" to the client; the cause goes to the log.
 */
async function errorHandler(app: FastifyInstance): Promise<void> {
  app.setErrorHandler(async (thrown, request, reply) => sendProblem(thrown, request, reply))
  app.setNotFoundHandler(async (request) => {
    throw new WaybillError('not_found', `No route ${request.method} ${request.url.split('?')[0] ?? ''}`)
  })
}

/**
 * Answers `thrown` as a problem body. Also used for Fastify's framework errors (a path with bad
 * percent-encoding), which are answered before any hook or the error handler runs.
 */
export function sendProblem(thrown: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const error = toWaybillError(thrown)
  // A 503 is a passing condition said to the client (store away, draining): a warning, no stack.
  if (error.status === 503) request.log.warn({ code: error.code, detail: error.detail, cause: String(error.cause ?? '') }, 'request refused for now')
  else if (error.status >= 500) request.log.error({ err: thrown }, 'request failed')
  else request.log.info({ code: error.code, detail: error.detail }, 'request refused')
  const path = request.url.split('?')[0] ?? request.url
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value)
  return reply
    .code(error.status)
    .header('x-request-id', request.id)
    .type('application/problem+json; charset=utf-8')
    .send(JSON.stringify(problemFor(error, path, request.id)))
}

export default fp(errorHandler, { name: 'waybill-error-handler' })
