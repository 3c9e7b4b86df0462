import type { FastifySchema } from 'fastify'

export interface OperationInfo {
  /** The OpenAPI operationId: generated clients name their method after it. */
  readonly id: string
  readonly summary: string
  readonly description?: string
  readonly tags: readonly string[]
  /** Whether the route needs an API key (`security: [{ apiKey: [] }]`) or none (`security: []`). */
  readonly keyed: boolean
}

/** A route's schema with the OpenAPI members @fastify/swagger reads, keeping the schema's type for the route. */
export function operation<Schema extends FastifySchema>(info: OperationInfo, schema: Schema): Schema {
  return {
    ...schema,
    operationId: info.id,
    summary: info.summary,
    ...(info.description === undefined ? {} : { description: info.description }),
    tags: [...info.tags],
    security: info.keyed ? [{ apiKey: [] }] : [],
  }
}
