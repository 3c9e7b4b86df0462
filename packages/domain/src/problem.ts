import Type, { type Static } from 'typebox'
import { ERROR_CATALOGUE, type ErrorCode } from './errors.js'

const CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[]

/**
 * The body of every error answer: RFC 9457 problem details (`application/problem+json`) with
 * our `code`, one of the catalogue's. The one home of its shape, for the OpenAPI document and
 * for the ingress that writes it.
 */
export const ProblemSchema = Type.Object({
  type: Type.String({ description: 'URI reference of the description of the code: /errors/<code>' }),
  title: Type.String({ description: "The code's fixed title" }),
  status: Type.Integer({ description: 'The HTTP status of the answer' }),
  detail: Type.String({ description: 'What was wrong with this request, naming the field where there is one' }),
  code: Type.Enum(CODES, { description: 'The error code' }),
  instance: Type.String({ description: 'Path of the request' }),
  request_id: Type.String({ description: 'Also in the X-Request-Id response header' }),
  errors: Type.Optional(Type.Array(Type.Object({
    pointer: Type.String({ description: 'JSON pointer (RFC 6901) to the field in the request body, e.g. /event_payload/order_id' }),
    field: Type.String({ description: 'The same field as a dotted name, e.g. event_payload.order_id' }),
    detail: Type.String({ description: 'What is wrong with that field' }),
  }), { description: 'Every field the request got wrong (a delivery payload, or a query or path parameter, refused by its schema: 400 bad_request), in field order; `detail` names the first' })),
}, { description: 'RFC 9457 problem details (application/problem+json) with the error code' })

export type Problem = Static<typeof ProblemSchema>
