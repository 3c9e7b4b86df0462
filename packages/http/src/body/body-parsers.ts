import type { IncomingMessage } from 'node:http'
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { WaybillError } from '@waybill/domain'
import { formFieldsToBody } from './form-fields.js'
import { checkJsonStructure } from './json-structure.js'
import { checkMultipartStructure, multipartFields } from './multipart.js'
import { readBody } from './read-body.js'
import { checkFormStructure, urlencodedFields } from './urlencoded.js'

/**
 * Zero bytes or only white space (docs/contract.md#empty-bodies), as String.prototype.trim counts
 * white space. Almost every body starts with a byte that settles it; only one that starts with
 * white space or a non-ASCII byte is decoded, natively, to be sure.
 */
function isBlank(body: Buffer): boolean {
  const first = body[0]
  if (first === undefined) return true
  const asciiSpace = first === 0x20 || (first >= 0x09 && first <= 0x0d)
  if (first < 0x80 && !asciiSpace) return false
  return body.toString('utf8').trim() === ''
}

/**
 * Gives the event loop back between the costly steps of one body (the scan, the parse, then
 * validation with its image decoding), so that the requests waiting behind it are served in
 * between rather than after the whole of it (docs/contract.md#body-structure).
 */
function yieldToOthers(): Promise<void> {
  return nextTurn()
}

function noBody(): WaybillError {
  return new WaybillError('no_body', 'The request body is empty')
}

/**
 * The three body types (docs/contract.md#body-content-types), each read whole into a buffer (at
 * most 16 MiB, else payload_too_large) and turned into the same plain shape, so the validators
 * see one structure whatever the content type. Fastify's own parsers are removed: their errors
 * and their treatment of empty bodies do not follow our precedence.
 *
 * Parsing runs on the thread every request shares, before the key's scope is known, so its cost
 * is bounded by the structure of the body, not by its bytes (docs/contract.md#body-structure): a JSON body
 * is scanned before JSON.parse, forms and multipart bodies are read by parsers that count as they
 * go, and the same checks look at the start of a body while it arrives, so that one already past
 * a limit is refused (and its connection closed) before the rest is read. Past a bound the answer
 * is bad_request naming it.
 *
 * A blank body is `no_body` whatever its content type, including an unknown one: the emptiness
 * of a body is a fact about it before its type matters. A non-blank body of any other type, or
 * with no Content-Type at all, is `unsupported_media_type` (415).
 */
async function bodyParsers(app: FastifyInstance): Promise<void> {
  app.removeAllContentTypeParsers()

  app.addContentTypeParser('application/json', async (request: FastifyRequest, payload: IncomingMessage) => {
    const body = await readBody(payload, request.headers['content-length'], (start) => { checkJsonStructure(start, false) })
    if (isBlank(body)) throw noBody()
    checkJsonStructure(body)
    await yieldToOthers()
    let parsed: unknown
    try {
      parsed = JSON.parse(body.toString('utf8'))
    } catch {
      throw new WaybillError('bad_request', 'The body is not valid JSON')
    }
    await yieldToOthers()
    return parsed
  })

  app.addContentTypeParser('application/x-www-form-urlencoded', async (request: FastifyRequest, payload: IncomingMessage) => {
    const body = await readBody(payload, request.headers['content-length'], checkFormStructure)
    if (isBlank(body)) throw noBody()
    const fields = await urlencodedFields(body, yieldToOthers)
    await yieldToOthers()
    return formFieldsToBody(fields)
  })

  app.addContentTypeParser('multipart/form-data', async (request: FastifyRequest, payload: IncomingMessage) => {
    const contentType = request.headers['content-type'] ?? ''
    const body = await readBody(payload, request.headers['content-length'], (start) => { checkMultipartStructure(start, contentType) })
    if (isBlank(body)) throw noBody()
    const fields = multipartFields(body, contentType)
    await yieldToOthers()
    return formFieldsToBody(fields)
  })

  app.addContentTypeParser('*', { parseAs: 'buffer' }, async (request: FastifyRequest, body: Buffer) => {
    if (isBlank(body)) throw noBody()
    const type = request.headers['content-type']
    throw new WaybillError('unsupported_media_type', type === undefined
      ? 'A body needs a Content-Type: application/json, application/x-www-form-urlencoded or multipart/form-data'
      : `Content-Type ${type.split(';')[0] ?? ''} is not accepted; use application/json, application/x-www-form-urlencoded or multipart/form-data`)
  })
}

export default fp(bodyParsers, { name: 'waybill-body-parsers' })
