import type { TSchema } from 'typebox'
import { canonicalJson, IMAGE_MEDIA_TYPES } from '@waybill/domain'
import { DELIVERY_EXAMPLES } from '@waybill/domain/wire'

interface Response {
  description?: string
  content?: Record<string, { schema?: unknown }>
  headers?: Record<string, unknown>
}
interface Operation {
  responses?: Record<string, Response>
  requestBody?: { content?: Record<string, Record<string, unknown>> }
  security?: unknown[]
  operationId?: string
}
type Paths = Record<string, Record<string, Operation | undefined> | undefined>
interface Document {
  paths?: object
  components?: { schemas?: Record<string, unknown>; headers?: Record<string, unknown> }
}

const header = (name: string) => ({ $ref: `#/components/headers/${name}` })
const HEADERS = {
  'X-Request-Id': { description: 'The request id: the one the request sent (1 to 128 of A-Z a-z 0-9 . _ : -) or a fresh UUID; also the problem body\'s request_id', schema: { type: 'string' } },
  'Retry-After': { description: 'Seconds to wait before sending the same request again', schema: { type: 'integer', minimum: 1 } },
  'Waybill-Event-Id': { description: 'The id of the stored event (UUID v5, deterministic: an exact retry answers the same id); the `event_id` of its entry in GET /v1/orders/{order_id}/events', schema: { type: 'string', format: 'uuid' } },
  'X-RateLimit-Limit': { description: 'Requests the key (or, without one, the client address) may make per window; on every answer after the key check', schema: { type: 'integer', minimum: 1 } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window', schema: { type: 'integer', minimum: 0 } },
  'X-RateLimit-Reset': { description: 'Seconds until the window starts again', schema: { type: 'integer', minimum: 0 } },
} as const
/** The routes the per-key limiter does not count (probes and the error catalogue): their answers carry no X-RateLimit-*. */
const NOT_KEY_LIMITED = new Set(['getLiveness', 'getReadiness', 'describeError'])
const FORM_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data']

/**
 * What the route schemas cannot say, said in the generated document: named schemas (each copy
 * of one becomes a `$ref`, so that generated clients get named types), every error answer as
 * `application/problem+json`, the headers of each answer, empty 201/202 bodies, `security: []`
 * on routes without a key, the form encodings, one example per event, and the image routes'
 * own media types.
 */
export function shapeOpenApi<T extends Document>(document: T, named: Readonly<Record<string, TSchema>>): T {
  const paths = (document.paths ?? {}) as Paths
  for (const [path, operations] of Object.entries(paths)) {
    for (const operation of Object.values(operations ?? {})) {
      if (operation !== undefined) shapeOperation(path, operation)
    }
  }
  document.components = { ...document.components, headers: HEADERS, schemas: { ...document.components?.schemas } }
  nameSchemas(document as Document & { components: { schemas: Record<string, unknown> } }, named)
  return document
}

function shapeOperation(path: string, operation: Operation): void {
  // Every route states its key requirement; one without is public, and says so.
  operation.security ??= []
  const responses = operation.responses ?? {}
  for (const [status, response] of Object.entries(responses)) {
    const headers: Record<string, unknown> = { 'X-Request-Id': header('X-Request-Id') }
    if (status === '429' || status === '503') headers['Retry-After'] = header('Retry-After')
    if (/^[45]/.test(status)) {
      response.content = { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } }
    } else if (status === '201' || status === '202') {
      // Accepted deliveries answer an empty body; the event's id is in a header.
      delete response.content
      headers['Waybill-Event-Id'] = header('Waybill-Event-Id')
    }
    if (/^2/.test(status) && !NOT_KEY_LIMITED.has(operation.operationId ?? '')) {
      for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) headers[name] = header(name)
    }
    response.headers = headers
  }
  if (/\/(pod|signature)$/.test(path)) {
    const image = { schema: { type: 'string', contentMediaType: 'image/*' } }
    const ok = responses['200']
    if (ok !== undefined) ok.content = Object.fromEntries(IMAGE_MEDIA_TYPES.map((type) => [type, image]))
  }
  const content = operation.requestBody?.content
  if (content !== undefined) {
    // @fastify/swagger gives every content type one shared media object: each gets its own here,
    // so that only the form types carry `encoding`.
    for (const [type, media] of Object.entries(content)) {
      content[type] = {
        ...media,
        examples: deliveryExamples(),
        ...(FORM_TYPES.includes(type) ? { encoding: { event_payload: { style: 'deepObject', explode: true } } } : {}),
      }
    }
  }
}

/**
 * The delivery examples in the order "Try it out" is accepted in: one order added, updated and
 * completed, then a second order added and canceled (the ORDER_CANCELED example's order, which
 * no other example adds; a completed order cannot be canceled).
 */
function deliveryExamples(): Record<string, { summary: string; description: string; value: unknown }> {
  const { ORDER_ADD, ORDER_UPDATE, ORDER_COMPLETE, ORDER_CANCELED } = DELIVERY_EXAMPLES
  const first = ORDER_ADD.event_payload.order_id
  const second = ORDER_CANCELED.event_payload.order_id
  const addSecond = { ...ORDER_ADD, event_payload: { ...ORDER_ADD.event_payload, order_id: second } }
  return {
    ORDER_ADD: { summary: 'ORDER_ADD', description: `Adds order ${first} (201). Send it first: the next two examples are about this order.`, value: ORDER_ADD },
    ORDER_UPDATE: { summary: 'ORDER_UPDATE', description: `Updates order ${first}, added by the ORDER_ADD example (202).`, value: ORDER_UPDATE },
    ORDER_COMPLETE: { summary: 'ORDER_COMPLETE', description: `Completes order ${first}, with a proof of delivery and a signature (202); the order is then locked.`, value: ORDER_COMPLETE },
    ORDER_ADD_TO_CANCEL: { summary: `ORDER_ADD of ${second}`, description: `Adds order ${second} (201), the one the ORDER_CANCELED example cancels.`, value: addSecond },
    ORDER_CANCELED: {
      summary: 'ORDER_CANCELED',
      description: `Cancels order ${second}, added before by the "ORDER_ADD of ${second}" example (202). Sent before that order is added, it answers 404 not_found.`,
      value: ORDER_CANCELED,
    },
  }
}

/**
 * Puts each named schema in components and replaces every copy of it in the document (route
 * schemas are inlined by @fastify/swagger) with a `$ref`. Smaller schemas first, so that a
 * schema that contains another refers to it too.
 */
function nameSchemas(document: Document & { components: { schemas: Record<string, unknown> } }, named: Readonly<Record<string, TSchema>>): void {
  const schemas = document.components.schemas
  for (const [name, schema] of Object.entries(named)) schemas[name] = asSwaggerWrites(JSON.parse(JSON.stringify(schema)))
  const bySize = Object.keys(named).sort((a, b) => JSON.stringify(named[a]).length - JSON.stringify(named[b]).length)
  for (const name of bySize) {
    const key = canonicalJson(schemas[name])
    const ref = { $ref: `#/components/schemas/${name}` }
    const replace = (value: unknown): unknown => {
      if (typeof value !== 'object' || value === null) return value
      if (canonicalJson(value) === key) return { ...ref }
      if (Array.isArray(value)) return value.map(replace)
      const object = value as Record<string, unknown>
      for (const member of Object.keys(object)) object[member] = replace(object[member])
      return object
    }
    document.paths = replace(document.paths) as object
    for (const other of Object.keys(schemas)) {
      if (other !== name) schemas[other] = replace(schemas[other])
    }
  }
}

/** A schema as @fastify/swagger writes a route's: `const: x` becomes `enum: [x]`. */
function asSwaggerWrites(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value
  if (Array.isArray(value)) return value.map(asSwaggerWrites)
  const object: Record<string, unknown> = {}
  for (const [member, inner] of Object.entries(value)) {
    if (member === 'const') object.enum = [inner]
    else object[member] = asSwaggerWrites(inner)
  }
  return object
}
