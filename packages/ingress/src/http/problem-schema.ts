import { Type } from 'typebox'

/** The error body of every 4xx/5xx answer, for the OpenAPI document. */
export const ProblemSchema = Type.Object({
  type: Type.String({ description: 'URI reference of the error description, /errors/<code>' }),
  title: Type.String(),
  status: Type.Integer(),
  detail: Type.String(),
  code: Type.String({ description: 'Error code from the catalogue (README: status codes)' }),
  instance: Type.String({ description: 'Path of the request' }),
  request_id: Type.String({ description: 'Also in the X-Request-Id response header' }),
}, { description: 'RFC 9457 problem details (application/problem+json)' })
