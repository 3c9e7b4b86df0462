import { IMAGE_MEDIA_TYPES } from '@waybill/domain'

interface Operation {
  responses?: Record<string, { description?: string; content?: Record<string, unknown> }>
}
type Paths = Record<string, Record<string, Operation | undefined> | undefined>

/**
 * What the route schemas cannot say, said in the generated document: every error answer is
 * `application/problem+json` (the schemas only describe its shape, and @fastify/swagger labels
 * every response `application/json`), and the image routes answer the image bytes in their own
 * media type.
 */
export function shapeOpenApi<T extends { paths?: object }>(document: T): T {
  for (const [path, operations] of Object.entries((document.paths ?? {}) as Paths)) {
    for (const operation of Object.values(operations ?? {})) {
      if (operation === undefined) continue
      const responses = operation.responses ?? {}
      for (const [status, response] of Object.entries(responses)) {
        const json = response.content?.['application/json']
        if (/^[45]/.test(status) && json !== undefined) response.content = { 'application/problem+json': json }
      }
      if (/\/(pod|signature)$/.test(path)) {
        const image = { schema: { type: 'string', format: 'binary' } }
        operation.responses = {
          ...responses,
          200: { description: 'The image bytes, in the media type they were sent in', content: Object.fromEntries(IMAGE_MEDIA_TYPES.map((type) => [type, image])) },
        }
      }
    }
  }
  return document
}
