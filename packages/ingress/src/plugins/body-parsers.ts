import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { WaybillError } from '@waybill/domain'
import { formFieldsToBody } from '../http/form-fields.js'

/** Zero bytes or only white space (docs/contract.md#empty-bodies). */
function isBlank(body: Buffer): boolean {
  return body.toString('utf8').trim() === ''
}

function noBody(): WaybillError {
  return new WaybillError('no_body', 'The request body is empty')
}

/**
 * The three body types (docs/contract.md#body-content-types), each read whole into a buffer (Fastify's bodyLimit
 * stops it at 16 MiB with payload_too_large) and turned into the same plain shape, so the
 * validators see one structure whatever the content type. Fastify's own parsers are removed:
 * their errors and their treatment of empty bodies do not follow our precedence.
 *
 * A blank body is `no_body` whatever its content type, including an unknown one: the emptiness
 * of a body is a fact about it before its type matters. A non-blank body of any other type, or
 * with no Content-Type at all, is `unsupported_media_type` (415).
 */
async function bodyParsers(app: FastifyInstance): Promise<void> {
  app.removeAllContentTypeParsers()

  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, async (_request: FastifyRequest, body: Buffer) => {
    if (isBlank(body)) throw noBody()
    try {
      return JSON.parse(body.toString('utf8')) as unknown
    } catch {
      throw new WaybillError('bad_request', 'The body is not valid JSON')
    }
  })

  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, async (_request: FastifyRequest, body: Buffer) => {
    if (isBlank(body)) throw noBody()
    return formFieldsToBody(new URLSearchParams(body.toString('utf8')))
  })

  app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer' }, async (request: FastifyRequest, body: Buffer) => {
    if (isBlank(body)) throw noBody()
    return formFieldsToBody(await multipartFields(body, request.headers['content-type'] ?? ''))
  })

  app.addContentTypeParser('*', { parseAs: 'buffer' }, async (request: FastifyRequest, body: Buffer) => {
    if (isBlank(body)) throw noBody()
    const type = request.headers['content-type']
    throw new WaybillError('unsupported_media_type', type === undefined
      ? 'A body needs a Content-Type: application/json, application/x-www-form-urlencoded or multipart/form-data'
      : `Content-Type ${type.split(';')[0] ?? ''} is not accepted; use application/json, application/x-www-form-urlencoded or multipart/form-data`)
  })
}

/**
 * Multipart is parsed by the platform's Fetch implementation (Node's built-in undici) from the
 * already-bounded buffer: one code path, no temporary files, and only text fields are accepted
 * (the images travel as Data URLs in text fields, as in the other two body types).
 */
async function multipartFields(body: Buffer, contentType: string): Promise<Array<[string, string]>> {
  let form: FormData
  try {
    // Deprecated in the DOM types only as advice against parsing unbounded uploads in a server;
    // this body is already read and capped by bodyLimit, which is the case it is fine for.
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- see above
    form = await new Response(body, { headers: { 'content-type': contentType } }).formData()
  } catch {
    throw new WaybillError('bad_request', 'The multipart body cannot be parsed')
  }
  const fields: Array<[string, string]> = []
  for (const [name, value] of form.entries()) {
    if (typeof value !== 'string') {
      throw new WaybillError('bad_request', `Multipart part "${name}" is a file; send images as Data URLs in text fields`)
    }
    fields.push([name, value])
  }
  return fields
}

export default fp(bodyParsers, { name: 'waybill-body-parsers' })
