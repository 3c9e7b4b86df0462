/** The form body types, whose `event_payload[field]` names are OpenAPI's deepObject style. */
const FORM_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data']
const DEEP_OBJECT = { event_payload: { style: 'deepObject', explode: true } } as const

type Media = Record<string, unknown>
interface Operation {
  requestBody?: { content?: Record<string, Media> }
  'x-request-examples'?: unknown
}
interface Document {
  paths?: Record<string, Record<string, Operation | undefined> | undefined>
}

/**
 * What a route schema cannot tell @fastify/swagger about a request body, which it builds from
 * the body's schema alone: its named examples (a route declares them as `x-request-examples`)
 * and how a form body encodes its nested payload (`encoding`). Everything else in the document
 * comes from the route schemas as declared.
 */
export function withRequestMedia<T extends object>(document: T): T {
  for (const operations of Object.values((document as Document).paths ?? {})) {
    for (const operation of Object.values(operations ?? {})) {
      if (operation === undefined) continue
      const examples = operation['x-request-examples']
      delete operation['x-request-examples']
      const content = operation.requestBody?.content ?? {}
      for (const [type, media] of Object.entries(content)) {
        content[type] = {
          ...media,
          ...(examples !== undefined ? { examples } : {}),
          ...(FORM_TYPES.includes(type) ? { encoding: DEEP_OBJECT } : {}),
        }
      }
    }
  }
  return document
}
